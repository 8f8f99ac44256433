//! Module trees and root modules.
//!
//! `terraform init` locks the providers of a root module *and of every module it calls*,
//! transitively (spec §4.2, `Config.addProviderRequirements` with `recurse`).
//! [`module_tree_requirements`] gathers that union: local calls (`./…`, `../…`) are
//! followed relative to the calling module's directory, remote calls through the root's
//! `.terraform/modules/modules.json` when an `init` has installed them, and otherwise
//! reported as warnings (their providers cannot be known without downloading them).
//!
//! [`find_roots`] decides which discovered directories get a lock file (DESIGN.md stage
//! "load"): a directory is a root when it has a `.terraform.lock.hcl`, a backend or cloud
//! block, or when no discovered module calls it as a local module.

use std::collections::BTreeSet;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use regex::Regex;

use super::{
    read_modules_manifest, ConfigError, Location, Module, ModuleCall, ModuleSource,
    ModulesManifest, Requirement,
};
use crate::discover::{is_config_file_name, normalize_path};

pub use crate::lockfile::LOCK_FILE_NAME;

/// How deeply module calls may nest. Terraform 1.0.3 follows a local call cycle until the
/// instance's key (`a.b.a.b…`, one directory name under `.terraform/modules`) passes the
/// 255-byte file-name limit, about 128 levels, and then fails; so no tree it can install
/// is deeper. Real trees are a handful of levels deep.
pub const MAX_MODULE_DEPTH: usize = 128;

/// How many module calls a root's tree may hold in all. A module is walked once per call
/// that reaches it (each is a separate instance to Terraform, with its own
/// `modules.json` entry), so calls that fan out (each module calling the next twice)
/// grow exponentially; real trees have tens to hundreds.
pub const MAX_MODULE_INSTANCES: usize = 10_000;

/// Something the tree walk could not follow; the root still gets a result, possibly
/// missing the providers of the module named.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct TreeWarning {
    pub at: Location,
    pub message: String,
}

impl fmt::Display for TreeWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.at, self.message)
    }
}

/// The provider requirements of one root module's whole tree.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TreeRequirements {
    /// Every requirement of every module in the tree (sorted, exact duplicates removed),
    /// each with the module directory that declared it. Built-in providers included.
    pub requirements: Vec<Requirement>,
    /// Every module directory in the tree, the root included (sorted, deduplicated).
    pub modules: Vec<PathBuf>,
    pub warnings: Vec<TreeWarning>,
}

/// Gathers the requirements of the module tree rooted at `root`.
///
/// `load` is called for every module directory reached (so a caller can cache modules
/// shared by several roots); paths given to it are lexically normalised. Errors: the root
/// or a called module failing to load (wrapped in [`ConfigError::ModuleCall`] naming the
/// call), an unreadable `modules.json`, or a tree Terraform could not install either: a
/// call cycle (naming the chain of calls), calls nested more than [`MAX_MODULE_DEPTH`]
/// deep, or more than [`MAX_MODULE_INSTANCES`] calls in all.
pub fn module_tree_requirements(
    root: &Path,
    load: impl FnMut(&Path) -> Result<Arc<Module>, ConfigError>,
) -> Result<TreeRequirements, ConfigError> {
    let root = normalize_path(root);
    let manifest = read_modules_manifest(&root)?;
    let mut walker = Walker {
        load,
        manifest,
        out: TreeRequirements::default(),
        instances: 0,
    };
    let module = (walker.load)(&root)?;
    let mut ancestors = vec![(root, None)];
    walker.visit(&module, "", &mut ancestors)?;
    let mut out = walker.out;
    out.requirements.sort();
    out.requirements.dedup();
    out.modules.sort();
    out.modules.dedup();
    out.warnings.sort();
    out.warnings.dedup();
    Ok(out)
}

struct Walker<L> {
    load: L,
    manifest: Option<ModulesManifest>,
    out: TreeRequirements,
    /// Module calls followed so far.
    instances: usize,
}

/// A module on the current call path: its directory and the call that entered it (none
/// for the root).
type Step = (PathBuf, Option<(Location, String)>);

/// The calls of `path` and then `last`, each as `main.tf:3 module "b"`.
fn call_chain(path: &[Step], last: &ModuleCall) -> Vec<String> {
    let calls = path.iter().filter_map(|(_, call)| call.as_ref());
    calls
        .chain(std::iter::once(&(last.at.clone(), last.name.clone())))
        .map(|(at, name)| format!("{at} module {name:?}"))
        .collect()
}

impl<L> Walker<L>
where
    L: FnMut(&Path) -> Result<Arc<Module>, ConfigError>,
{
    /// Depth-first over module calls. `key` is the module's manifest key (`""` for the
    /// root); `ancestors` holds the modules on the current call path.
    fn visit(
        &mut self,
        module: &Module,
        key: &str,
        ancestors: &mut Vec<Step>,
    ) -> Result<(), ConfigError> {
        self.out.requirements.extend(module.requirements());
        self.out.modules.push(normalize_path(&module.dir));
        for call in &module.module_calls {
            let child_key = if key.is_empty() {
                call.name.clone()
            } else {
                format!("{key}.{}", call.name)
            };
            let dir = match call.classify(&module.dir) {
                ModuleSource::Local(dir) => dir,
                kind => match self.manifest.as_ref().map(|m| m.dir_for(&child_key)) {
                    Some(Some(dir)) => dir,
                    Some(None) => {
                        self.warn(call.at.clone(), format!(
                            "module {:?} (source {:?}) is missing from .terraform/modules/modules.json; run init again so its providers can be included",
                            call.name, call.source
                        ));
                        continue;
                    }
                    None => {
                        let what = if kind == ModuleSource::Dynamic {
                            "has a source expression tfsum cannot evaluate"
                        } else {
                            "is a remote module"
                        };
                        self.warn(call.at.clone(), format!(
                            "module {:?} (source {:?}) {what} and is not installed (no .terraform/modules/modules.json); providers it requires are not included; run init first to include them",
                            call.name, call.source
                        ));
                        continue;
                    }
                },
            };
            let refused = if ancestors.iter().any(|(d, _)| *d == dir) {
                let chain = call_chain(ancestors, call).join(" → ");
                Some(format!("module cycle: {chain} → {}", dir.display()))
            } else if ancestors.len() > MAX_MODULE_DEPTH {
                let chain = call_chain(ancestors, call);
                Some(format!(
                    "module calls nest more than {MAX_MODULE_DEPTH} deep: {} → … → {} → {}",
                    chain[0],
                    chain[chain.len() - 1],
                    dir.display()
                ))
            } else if self.instances >= MAX_MODULE_INSTANCES {
                Some(format!(
                    "the module tree has more than {MAX_MODULE_INSTANCES} module calls (a module is walked once per call that reaches it)"
                ))
            } else {
                None
            };
            if let Some(message) = refused {
                return Err(ConfigError::Invalid {
                    at: call.at.clone(),
                    message,
                });
            }
            self.instances += 1;
            let child = match (self.load)(&dir) {
                Ok(child) => child,
                // Terraform loads a called directory without configuration files as an
                // empty module, without complaint (checked against v1.0.3); it requires
                // nothing. A warning still says so: it is rarely intended.
                Err(e @ ConfigError::NoConfiguration { .. }) => {
                    self.out.modules.push(dir);
                    self.warn(
                        call.at.clone(),
                        format!(
                            "module {:?} (source {:?}) is empty and requires no providers: {e}",
                            call.name, call.source
                        ),
                    );
                    continue;
                }
                Err(source) => {
                    return Err(ConfigError::ModuleCall {
                        at: call.at.clone(),
                        name: call.name.clone(),
                        module_source: call.source.clone(),
                        source: Box::new(source),
                    })
                }
            };
            ancestors.push((dir, Some((call.at.clone(), call.name.clone()))));
            let result = self.visit(&child, &child_key, ancestors);
            ancestors.pop();
            result?;
        }
        Ok(())
    }

    fn warn(&mut self, at: Location, message: String) {
        self.out.warnings.push(TreeWarning { at, message });
    }
}

/// Picks the root modules among discovered directories.
///
/// `modules` are the directories that loaded; `unloadable` those that failed to load. A
/// failed directory is still a candidate root (so its error is reported for it), and its
/// local calls are recovered with a plain text scan for `source = "./…"`, so that one
/// syntax error does not make its children look like roots. Returns sorted, lexically
/// normalised paths.
///
/// This applies to recursive discovery; without `--recursive` every given directory is a
/// root by the user's say-so and the caller need not ask.
pub fn find_roots(modules: &[(PathBuf, Arc<Module>)], unloadable: &[PathBuf]) -> Vec<PathBuf> {
    let mut called = BTreeSet::new();
    for (dir, module) in modules {
        let dir = normalize_path(dir);
        for call in &module.module_calls {
            if let ModuleSource::Local(target) = call.classify(&dir) {
                if target != dir {
                    called.insert(target);
                }
            }
        }
    }
    for dir in unloadable {
        let dir = normalize_path(dir);
        for target in scan_local_sources(&dir) {
            if target != dir {
                called.insert(target);
            }
        }
    }
    let candidates = modules
        .iter()
        .map(|(dir, module)| (dir, module.has_backend))
        .chain(unloadable.iter().map(|dir| (dir, false)));
    let mut roots: Vec<PathBuf> = candidates
        .filter_map(|(dir, has_backend)| {
            let dir = normalize_path(dir);
            let is_root =
                has_backend || dir.join(LOCK_FILE_NAME).is_file() || !called.contains(&dir);
            is_root.then_some(dir)
        })
        .collect();
    roots.sort();
    roots.dedup();
    roots
}

/// Local module sources found by a lenient text scan of a directory's configuration files
/// (native `source = "./x"` and JSON `"source": "./x"`), resolved against `dir`. Used only
/// for directories that failed to parse.
fn scan_local_sources(dir: &Path) -> Vec<PathBuf> {
    static SOURCE: OnceLock<Option<Regex>> = OnceLock::new();
    let Some(re) = SOURCE
        .get_or_init(|| Regex::new(r#""?\bsource"?\s*[=:]\s*"(\.\.?[/\\][^"]*)""#).ok())
        .as_ref()
    else {
        return Vec::new();
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if !is_config_file_name(name) {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(entry.path()) else {
            continue;
        };
        for caps in re.captures_iter(&text) {
            if let Some(source) = caps.get(1) {
                let rel = source.as_str().replace('\\', "/");
                out.push(normalize_path(&dir.join(rel)));
            }
        }
    }
    out
}
