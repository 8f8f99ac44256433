//! Module trees and root modules.
//!
//! `terraform init` locks the providers of a root module *and of every module it calls*,
//! transitively (spec §4.2, `Config.addProviderRequirements` with `recurse`).
//! [`module_tree_requirements`] gathers that union: local calls (`./…`, `../…`) are
//! followed relative to the calling module's directory, remote calls through the root's
//! `.terraform/modules/modules.json` while an earlier `init`'s entries still stand, and
//! otherwise through a [`ModuleReader`] that fetches them (`tfsum_sources::modules`).
//!
//! [`roots_by_calls`] decides which discovered directories get a lock file (docs/design.md,
//! stage "load"): a directory is a root when it has a `.terraform.lock.hcl`, a backend or cloud
//! block, or when no discovered module calls it as a local module.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use rayon::prelude::*;
use regex::Regex;

use super::early::{Definition, Instance, RootInputs};
use super::{
    manifest_entry_for_call, read_modules_manifest, ConfigError, Location, Module, ModuleCall,
    ModulesManifest, Requirement, DATA_DIR,
};
use tfsum_sources::modules::{resolve_in_package, FetchedModule, ModuleError};
use tfsum_vocab::module_source::is_local_source;
use tfsum_vocab::module_source::redacted_source;
use tfsum_vocab::module_source::{parse_source_for, ModuleSource as RemoteSource};
use tfsum_vocab::paths::{is_config_file_name, normalize_path};

pub(crate) use tfsum_vocab::lockfile::LOCK_FILE_NAME;

/// How deeply module calls may nest. Terraform 1.0.3 follows a local call cycle until the
/// instance's key (`a.b.a.b…`, one directory name under `.terraform/modules`) passes the
/// 255-byte file-name limit, about 128 levels, and then fails; so no tree it can install
/// is deeper. Real trees are a handful of levels deep.
pub(crate) const MAX_MODULE_DEPTH: usize = 128;

/// How many module calls a root's tree may hold in all. A module is walked once per call
/// that reaches it (each is a separate instance to Terraform, with its own
/// `modules.json` entry), so calls that fan out (each module calling the next twice)
/// grow exponentially; real trees have tens to hundreds.
pub(crate) const MAX_MODULE_INSTANCES: usize = 10_000;

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
    /// Remote calls whose code the reader did not have yet ([`Remote::Pending`]): while
    /// non-zero the result is partial, and the caller fetches and walks again.
    pub pending: usize,
    /// Local module directories reached through a call whose source is an expression
    /// (sorted): discovery could not tell they are called, so they may have been taken
    /// for roots.
    pub evaluated_local: Vec<PathBuf>,
    /// The calls whose `source` or `version` is an expression, as this root evaluated
    /// them, with where their version is written (`tfsum outdated` and `upgrade`).
    pub evaluated_calls: Vec<EvaluatedCall>,
}

/// A module call whose `source` or `version` is an expression, evaluated for one root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvaluatedCall {
    /// The calling module's directory.
    pub dir: PathBuf,
    pub name: String,
    pub at: Location,
    pub source: String,
    pub version: Option<String>,
    /// Where the version (a registry module's `version`, a git module's `?ref=`) is
    /// written as a literal, or why it is not.
    pub definition: Result<Definition, String>,
    /// For the source of a Terragrunt unit (its `terraform.source`, or a stack block's
    /// `source`, which `name` says), the unit's directory: not a module call.
    pub unit: Option<PathBuf>,
}

impl EvaluatedCall {
    /// What it is, for messages: `module "vpc"`, or `terraform.source of unit live/app`.
    pub fn label(&self) -> String {
        match &self.unit {
            None => format!("module {:?}", self.name),
            Some(unit) => format!("{} of unit {}", self.name, unit.display()),
        }
    }
}

/// What the reader knows of a remote module call's code.
#[derive(Debug, Clone)]
pub enum Remote {
    Fetched(FetchedModule),
    /// Not fetched yet: the walk leaves the call out and counts it.
    Pending,
    Failed(ModuleError),
}

/// How the walk reads modules: local directories parsed (a caller caches modules shared
/// by several roots; paths are lexically normalised), remote calls' code fetched.
pub trait ModuleReader {
    fn load(&mut self, dir: &Path) -> Result<Arc<Module>, ConfigError>;
    /// The code of a remote call; `version` is its non-blank `version` argument.
    fn remote(&mut self, source: &RemoteSource, version: Option<&str>) -> Remote;
    /// Whether `dir` is known to have no entry `name` (a listing taken in this run says
    /// so); `false` when that is not known, and the filesystem is asked.
    fn lacks(&self, _dir: &Path, _name: &str) -> bool {
        false
    }
}

/// A reader of local modules only: each directory parsed from disk, every remote call
/// left [`Remote::Pending`]. For walks that must not touch the network (tests, fuzzing).
pub struct LocalModules<'h> {
    pub default_host: &'h str,
}

impl ModuleReader for LocalModules<'_> {
    fn load(&mut self, dir: &Path) -> Result<Arc<Module>, ConfigError> {
        super::load_module(dir, self.default_host).map(Arc::new)
    }

    fn remote(&mut self, _: &RemoteSource, _: Option<&str>) -> Remote {
        Remote::Pending
    }
}

/// Gathers the requirements of the module tree rooted at `root`, whose registry
/// addresses without a host mean `default_host`; calls whose `source` or `version` is an
/// expression are evaluated with the values `inputs` gives the root
/// ([`crate::early`]).
///
/// Local calls are followed relative to the caller; remote calls through the root's
/// `.terraform/modules/modules.json` while its entries still stand (as `init` without
/// `-upgrade` keeps them), else through `reader`. Local calls inside a fetched package
/// may not leave it. Errors: a module failing to load (wrapped in
/// [`ConfigError::ModuleCall`]) or to fetch ([`ConfigError::RemoteModule`]), an
/// unreadable `modules.json`, a source tfsum cannot follow, or a tree Terraform could not
/// install either: a call cycle (naming the chain of calls), calls nested more than
/// [`MAX_MODULE_DEPTH`] deep, or more than [`MAX_MODULE_INSTANCES`] calls in all.
pub fn module_tree_requirements(
    root: &Path,
    default_host: &str,
    inputs: &RootInputs<'_>,
    reader: &mut impl ModuleReader,
) -> Result<TreeRequirements, ConfigError> {
    let root = normalize_path(root);
    let manifest = if reader.lacks(&root, DATA_DIR) {
        None
    } else {
        read_modules_manifest(&root)?
    };
    let mut walker = Walker {
        reader,
        default_host,
        manifest,
        out: TreeRequirements::default(),
        instances: 0,
    };
    let module = walker.reader.load(&root)?;
    let mut ancestors = vec![(root, None)];
    let place = Place {
        key: String::new(),
        package: None,
        installed: true,
        path_module: ".".to_string(),
        package_key: String::new(),
    };
    let instance = Instance::root(inputs, &module);
    walker.visit(&module, &place, &instance, &mut ancestors)?;
    let mut out = walker.out;
    out.requirements.sort();
    out.requirements.dedup();
    out.modules.sort();
    out.modules.dedup();
    out.warnings.sort();
    out.warnings.dedup();
    out.evaluated_local.sort();
    out.evaluated_local.dedup();
    Ok(out)
}

struct Walker<'r, R> {
    reader: &'r mut R,
    default_host: &'r str,
    manifest: Option<ModulesManifest>,
    out: TreeRequirements,
    /// Module calls followed so far.
    instances: usize,
}

/// Where a module sits in the tree.
struct Place {
    /// Its `modules.json` key (`""` for the root, `a.b` for call `b` inside call `a`).
    key: String,
    /// The fetched package it lies in, which its local calls may not leave.
    package: Option<PathBuf>,
    /// Whether `modules.json` may still speak for its calls: `init` discards the entries
    /// below a module it reinstalls, so only while every ancestor's entry was kept.
    installed: bool,
    /// Terraform's `path.module` there ([`Instance::path_module_for`]).
    path_module: String,
    /// The key of the call that fetched `package`: `init` installs the package under it.
    package_key: String,
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

impl<R: ModuleReader> Walker<'_, R> {
    /// Depth-first over module calls; `ancestors` holds the modules on the current call
    /// path, `instance` the module's static values there.
    fn visit(
        &mut self,
        module: &Module,
        place: &Place,
        instance: &Instance<'_>,
        ancestors: &mut Vec<Step>,
    ) -> Result<(), ConfigError> {
        self.out.requirements.extend(module.requirements());
        self.out.modules.push(normalize_path(&module.dir));
        instance.check_constants()?;
        for call in &module.module_calls {
            // Counted before the reader is asked, so a tree over the limit fails before
            // anything is fetched.
            self.count_call(call)?;
            let Some((dir, child_place)) = self.target(module, place, instance, call)? else {
                continue;
            };
            self.check_growth(ancestors, call, &dir)?;
            let Some(child) = self.load_child(call, &dir)? else {
                continue;
            };
            ancestors.push((dir, Some((call.at.clone(), call.name.clone()))));
            let child_instance = instance.child(call, &child, child_place.path_module.clone());
            let result = self.visit(&child, &child_place, &child_instance, ancestors);
            ancestors.pop();
            result?;
        }
        Ok(())
    }

    /// Where `call`'s code is and its place in the tree; `None` while it waits to be
    /// fetched. A `source` or `version` written as an expression is evaluated first.
    fn target(
        &mut self,
        module: &Module,
        place: &Place,
        instance: &Instance<'_>,
        call: &ModuleCall,
    ) -> Result<Option<(PathBuf, Place)>, ConfigError> {
        let key = if place.key.is_empty() {
            call.name.clone()
        } else {
            format!("{}.{}", place.key, call.name)
        };
        let evaluated;
        let dynamic = !call.literal || call.written.version.is_some();
        let (source, version) = if dynamic {
            evaluated = instance.evaluate_call(call)?;
            if let Some(definition) = instance.version_definition(call) {
                self.out.evaluated_calls.push(EvaluatedCall {
                    dir: normalize_path(&module.dir),
                    name: call.name.clone(),
                    at: call.at.clone(),
                    source: evaluated.source.clone(),
                    version: evaluated.version.clone(),
                    definition,
                    unit: None,
                });
            }
            (evaluated.source.as_str(), evaluated.version.as_deref())
        } else {
            let version = call.version.as_deref().filter(|v| !v.trim().is_empty());
            (call.source.as_str(), version)
        };
        let at = |dir: PathBuf,
                  package: Option<PathBuf>,
                  installed: bool,
                  path_module: String,
                  package_key: String| {
            Some((
                dir,
                Place {
                    key: key.clone(),
                    package,
                    installed,
                    path_module,
                    package_key,
                },
            ))
        };
        if is_local_source(source) {
            let dir = self.local_target(module, place, call, source, version)?;
            if dynamic {
                self.out.evaluated_local.push(dir.clone());
            }
            let path_module = match &place.package {
                // Inside a fetched package: where `init` would install that package.
                Some(package) => {
                    let inside = dir.strip_prefix(package).unwrap_or(Path::new(""));
                    instance.path_module_for(&dir, Some((&place.package_key, inside)))
                }
                None => instance.path_module_for(&dir, None),
            };
            let package_key = place.package_key.clone();
            return Ok(at(
                dir,
                place.package.clone(),
                place.installed,
                path_module,
                package_key,
            ));
        }
        if let Some(dir) = self.installed_dir(place, call, &key, source, version) {
            let path_module = instance.path_module_for(&dir, None);
            return Ok(at(dir, None, true, path_module, String::new()));
        }
        let fetch_failed = |error: ModuleError| ConfigError::RemoteModule {
            at: call.at.clone(),
            name: call.name.clone(),
            module_source: source.to_string(),
            error: Box::new(error),
        };
        let parsed =
            parse_source_for(source, self.default_host).map_err(|e| fetch_failed(e.into()))?;
        match self.reader.remote(&parsed, version) {
            Remote::Fetched(fetched) => {
                let inside = fetched
                    .dir
                    .strip_prefix(&fetched.package_root)
                    .unwrap_or(Path::new(""))
                    .to_path_buf();
                let path_module = instance.path_module_for(&fetched.dir, Some((&key, &inside)));
                let package = Some(fetched.package_root);
                Ok(at(fetched.dir, package, false, path_module, key.clone()))
            }
            Remote::Pending => {
                self.out.pending += 1;
                Ok(None)
            }
            Remote::Failed(error) => Err(fetch_failed(error)),
        }
    }

    /// A local call's directory: next to the caller, and inside the caller's package.
    fn local_target(
        &self,
        module: &Module,
        place: &Place,
        call: &ModuleCall,
        source: &str,
        version: Option<&str>,
    ) -> Result<PathBuf, ConfigError> {
        if version.is_some() {
            return Err(ConfigError::invalid(
                call.at.clone(),
                format!(
                    "cannot apply a version constraint to module {:?} because it has a relative local path",
                    call.name
                ),
            ));
        }
        match &place.package {
            Some(package) => resolve_in_package(package, &module.dir, source).map_err(|e| {
                ConfigError::invalid(call.at.clone(), format!("module {:?}: {e}", call.name))
            }),
            None => Ok(normalize_path(&module.dir.join(source.replace('\\', "/")))),
        }
    }

    /// The directory an earlier `init` installed for the call, while its
    /// `modules.json` entry still stands.
    fn installed_dir(
        &self,
        place: &Place,
        _call: &ModuleCall,
        key: &str,
        source: &str,
        version: Option<&str>,
    ) -> Option<PathBuf> {
        let manifest = self.manifest.as_ref().filter(|_| place.installed)?;
        manifest_entry_for_call(manifest, key, source, version, self.default_host)
    }

    /// Refuses a tree Terraform could not install either.
    fn check_growth(
        &self,
        ancestors: &[Step],
        call: &ModuleCall,
        dir: &Path,
    ) -> Result<(), ConfigError> {
        let refused = if ancestors.iter().any(|(d, _)| d == dir) {
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
        } else {
            None
        };
        match refused {
            Some(message) => Err(ConfigError::invalid(call.at.clone(), message)),
            None => Ok(()),
        }
    }

    /// Counts one more module call, refusing a tree with more than
    /// [`MAX_MODULE_INSTANCES`]; calls still waiting to be fetched count too.
    fn count_call(&mut self, call: &ModuleCall) -> Result<(), ConfigError> {
        self.instances += 1;
        if self.instances > MAX_MODULE_INSTANCES {
            return Err(ConfigError::invalid(
                call.at.clone(),
                format!(
                    "the module tree has more than {MAX_MODULE_INSTANCES} module calls (a module is walked once per call that reaches it)"
                ),
            ));
        }
        Ok(())
    }

    /// The called module; `None` for a directory without configuration files, which
    /// Terraform loads as an empty module without complaint (checked against v1.0.3). A
    /// warning still says so: it is rarely intended.
    fn load_child(
        &mut self,
        call: &ModuleCall,
        dir: &Path,
    ) -> Result<Option<Arc<Module>>, ConfigError> {
        match self.reader.load(dir) {
            Ok(child) => Ok(Some(child)),
            Err(e @ ConfigError::NoConfiguration { .. }) => {
                self.out.modules.push(dir.to_path_buf());
                self.out.warnings.push(TreeWarning {
                    at: call.at.clone(),
                    message: format!(
                        "module {:?} (source {:?}) is empty and requires no providers: {e}",
                        call.name,
                        redacted_source(&call.source)
                    ),
                });
                Ok(None)
            }
            Err(source) => Err(ConfigError::ModuleCall {
                at: call.at.clone(),
                name: call.name.clone(),
                module_source: call.source.clone(),
                source: Box::new(source),
            }),
        }
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
#[cfg(test)]
pub(crate) fn find_roots(
    modules: &[(PathBuf, Arc<Module>)],
    unloadable: &[PathBuf],
) -> Vec<PathBuf> {
    // Thousands of modules: their calls are resolved on every core.
    let mut facts: Vec<(PathBuf, Vec<PathBuf>, bool)> = modules
        .par_iter()
        .map(|(dir, module)| (dir.clone(), local_calls(dir, module), module.has_backend))
        .collect();
    facts.extend(
        unloadable
            .iter()
            .map(|dir| (dir.clone(), scanned_calls(dir), false)),
    );
    roots_by_calls(&facts)
}

/// The directories `module` (in `dir`) calls as local modules, normalised, `dir` itself
/// left out: what root detection reads of a module that loaded.
pub fn local_calls(dir: &Path, module: &Module) -> Vec<PathBuf> {
    let dir = normalize_path(dir);
    module
        .module_calls
        .iter()
        .filter_map(|call| call.local_dir(&dir))
        .filter(|target| *target != dir)
        .collect()
}

/// The local calls of a directory that failed to load, from a text scan of its files
/// (see [`roots_by_calls`]).
pub fn scanned_calls(dir: &Path) -> Vec<PathBuf> {
    let dir = normalize_path(dir);
    scan_local_sources(&dir, is_config_file_name)
        .into_iter()
        .filter(|target| *target != dir)
        .collect()
}

/// Which candidates are roots, from what root detection reads of each: its directory,
/// the directories its local calls name ([`local_calls`], [`scanned_calls`]) and
/// whether it has a backend block.
pub fn roots_by_calls(candidates: &[(PathBuf, Vec<PathBuf>, bool)]) -> Vec<PathBuf> {
    let called: std::collections::HashSet<&PathBuf> = candidates
        .iter()
        .flat_map(|(_, calls, _)| calls.iter())
        .collect();
    let mut roots: Vec<PathBuf> = candidates
        .par_iter()
        .filter_map(|(dir, _, has_backend)| {
            let dir = normalize_path(dir);
            let is_root =
                *has_backend || dir.join(LOCK_FILE_NAME).is_file() || !called.contains(&dir);
            is_root.then_some(dir)
        })
        .collect();
    roots.par_sort();
    roots.dedup();
    roots
}

/// Local module sources found by a lenient text scan of the files of a directory whose
/// names `read` accepts (native `source = "./x"` and JSON `"source": "./x"`), resolved
/// against `dir`. Used only for directories that failed to parse.
pub fn scan_local_sources(dir: &Path, read: fn(&str) -> bool) -> Vec<PathBuf> {
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
        if !read(name) {
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
