//! Stage 2 of the pipeline (DESIGN.md "load"): from discovered directories to roots, each
//! with its old lock file, its flavor and the provider requirements of its whole module
//! tree ([`Loaded`]).
//!
//! A directory is a root when it has a lock file, a backend or cloud block, or when no
//! other discovered module calls it as a local module (`config::tree::find_roots`); a
//! Terragrunt unit is a root of its own, and the modules units use as sources are not,
//! unless they say so. Every module directory is parsed once per default registry host
//! ([`Loader`]); a module shared by a Terraform and an OpenTofu root reads differently for
//! each.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::addr::ProviderAddr;
use crate::atomic::link_target;
use crate::config::{self, tree, ConfigError, Module};
use crate::discover::{normalize_path, Discovery};
use crate::lockfile::{self, Flavor, LockFile, LOCK_FILE_NAME};
use crate::resolve::{self, ProviderReqs};
use crate::root::{LockProblem, Root, RootError, RootKind, Stop};
use crate::terragrunt::{self, UnitConfig};

/// A root whose configuration and lock file were read.
#[derive(Debug)]
pub struct Loaded {
    pub flavor: Flavor,
    pub old: Option<OldLock>,
    /// What the root's module tree asks of each lockable provider.
    pub reqs: BTreeMap<ProviderAddr, ProviderReqs>,
    /// Every module directory of the root's configuration (for changed-files mode).
    pub modules: Vec<PathBuf>,
    /// Where the lock file is written: its own path, or the target of a lock file that
    /// is a link within the tree.
    pub lock_path: PathBuf,
}

/// The lock file a root already has.
#[derive(Debug)]
pub struct OldLock {
    pub bytes: Vec<u8>,
    pub lock: LockFile,
}

/// How roots are loaded: plain values from the settings.
#[derive(Debug, Clone)]
pub struct LoadOptions {
    /// Forces every root's flavor; `None` detects it per root ([`detect_flavor`]).
    pub flavor: Option<Flavor>,
    pub recursive: bool,
    /// The trees tfsum works on (canonical): a lock file that is a link may lead only
    /// into one of them.
    pub within: Vec<PathBuf>,
}

/// Every root of `discovery`, in path order, loaded or stopped; and the warnings met on
/// the way (remote modules not followed, empty modules, …).
pub fn roots(discovery: &Discovery, options: &LoadOptions) -> (Vec<Root<Loaded>>, Vec<String>) {
    let mut loader = Loader::default();
    let mut warnings: Vec<String> = discovery.warnings.iter().map(|w| w.to_string()).collect();
    let units: Vec<(PathBuf, Result<UnitConfig, terragrunt::TerragruntError>)> =
        terragrunt::find_units(&discovery.unit_dirs, options.recursive)
            .into_iter()
            .map(|dir| {
                let unit = terragrunt::load_unit(&dir, &terragrunt::find_repo_root(&dir));
                (dir, unit)
            })
            .collect();
    let module_roots = find_module_roots(discovery, &units, options, &mut loader);
    let mut roots = Vec::new();
    for dir in module_roots {
        roots.push(load_root(
            &dir,
            RootKind::Module,
            None,
            options,
            &mut loader,
            &mut warnings,
        ));
    }
    for (dir, unit) in units {
        let root = match unit {
            Ok(unit) => load_root(
                &dir,
                RootKind::Unit,
                Some(unit),
                options,
                &mut loader,
                &mut warnings,
            ),
            Err(e) if e.is_skip() => Root {
                dir,
                kind: RootKind::Unit,
                stage: Err(Stop::Skipped(e.to_string())),
            },
            Err(e) => Root::failed(dir, RootKind::Unit, e.into()),
        };
        roots.push(root);
    }
    roots.sort_by(|a, b| a.dir.cmp(&b.dir));
    (roots, warnings)
}

/// The module directories that are roots. Without `recursive` every given directory is
/// one; with it, root detection needs every module's calls, and directories that fail to
/// load stay candidates, so their failure is reported instead of silently dropped. Units
/// own their directory's lock file, and the modules they use as sources are not roots of
/// their own unless they say so (a lock file or a backend).
fn find_module_roots(
    discovery: &Discovery,
    units: &[(PathBuf, Result<UnitConfig, terragrunt::TerragruntError>)],
    options: &LoadOptions,
    loader: &mut Loader,
) -> Vec<PathBuf> {
    if !options.recursive {
        return discovery.dirs.clone();
    }
    let mut loaded = Vec::new();
    let mut unloadable = Vec::new();
    for dir in &discovery.dirs {
        let flavor = options.flavor.unwrap_or_else(|| {
            let old = read_old_lock(dir, &options.within)
                .ok()
                .and_then(|(_, text)| text);
            detect_flavor(dir, old.as_deref().map(str::as_bytes))
        });
        match loader.load(dir, flavor.default_registry()) {
            Ok(module) => loaded.push((dir.clone(), module)),
            Err(_) => unloadable.push(dir.clone()),
        }
    }
    let unit_dirs: BTreeSet<PathBuf> = units.iter().map(|(u, _)| normalize_path(u)).collect();
    let unit_sources: BTreeSet<PathBuf> = units
        .iter()
        .filter_map(|(_, unit)| unit.as_ref().ok())
        .map(|config| normalize_path(config.module_dir()))
        .collect();
    tree::find_roots(&loaded, &unloadable)
        .into_iter()
        .filter(|dir| {
            let dir_n = normalize_path(dir);
            if unit_dirs.contains(&dir_n) {
                return false;
            }
            if unit_sources.contains(&dir_n) {
                let has_backend = loaded.iter().any(|(d, m)| d == dir && m.has_backend);
                return dir.join(LOCK_FILE_NAME).exists() || has_backend;
            }
            true
        })
        .collect()
}

/// One root: its lock file (and flavor), then its module tree's requirements. A unit's
/// configuration is its source module with the unit's own and generated files laid over
/// it; its lock file sits beside `terragrunt.hcl`.
fn load_root(
    dir: &Path,
    kind: RootKind,
    unit: Option<UnitConfig>,
    options: &LoadOptions,
    loader: &mut Loader,
    warnings: &mut Vec<String>,
) -> Root<Loaded> {
    let stage = (|| {
        let (lock_path, old_text) = read_old_lock(dir, &options.within)?;
        let flavor = options
            .flavor
            .unwrap_or_else(|| detect_flavor(dir, old_text.as_deref().map(str::as_bytes)));
        let old = match old_text {
            Some(text) => {
                let lock = lockfile::parse(&text, flavor.default_registry()).map_err(|e| {
                    RootError::LockFile {
                        path: dir.join(LOCK_FILE_NAME),
                        problem: LockProblem::Invalid(e),
                    }
                })?;
                Some(OldLock {
                    bytes: text.into_bytes(),
                    lock,
                })
            }
            None => None,
        };
        let host = flavor.default_registry();
        let tree = match &unit {
            Some(unit) => {
                terragrunt::unit_requirements(unit, host, |d: &Path| loader.load(d, host))
            }
            None => tree::module_tree_requirements(dir, |d: &Path| loader.load(d, host)),
        }
        .map_err(RootError::Config)?;
        warnings.extend(tree.warnings.iter().map(|w| w.to_string()));
        let mut modules = vec![dir.to_path_buf()];
        modules.extend(tree.modules.iter().cloned());
        if let Some(unit) = &unit {
            modules.push(unit.module_dir().to_path_buf());
        }
        let reqs = resolve::collect(&tree.requirements).map_err(RootError::Constraint)?;
        Ok(Loaded {
            flavor,
            old,
            reqs,
            modules,
            lock_path,
        })
    })();
    Root {
        dir: dir.to_path_buf(),
        kind,
        stage: stage.map_err(Stop::Failed),
    }
}

/// Where the root's lock file is written and what it holds now. A lock file that is a
/// link is followed only into the trees tfsum works on, and then read from its target.
fn read_old_lock(dir: &Path, within: &[PathBuf]) -> Result<(PathBuf, Option<String>), RootError> {
    let path = dir.join(LOCK_FILE_NAME);
    let target = link_target(&path, within)?;
    let problem = |problem| RootError::LockFile {
        path: path.clone(),
        problem,
    };
    let bytes = match std::fs::read(&target) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((target, None)),
        Err(e) => return Err(problem(LockProblem::Read(e))),
    };
    let text = String::from_utf8(bytes).map_err(|_| problem(LockProblem::NotUtf8))?;
    Ok((target, Some(text)))
}

/// The flavor of a root without `--flavor`: the existing lock file's header decides,
/// else the presence of `.tofu` files (spec §10).
pub fn detect_flavor(dir: &Path, old: Option<&[u8]>) -> Flavor {
    if let Some(bytes) = old {
        return Flavor::from_header(&String::from_utf8_lossy(bytes));
    }
    let has_tofu = config::files::config_file_names(dir).is_ok_and(|names| {
        names
            .iter()
            .any(|n| n.ends_with(".tofu") || n.ends_with(".tofu.json"))
    });
    if has_tofu {
        Flavor::OpenTofu
    } else {
        Flavor::Terraform
    }
}

/// Parses each module directory once per default registry host. Successes are kept; a
/// failure is not, so asking again yields the error again (failures are rare and the
/// error type is not `Clone`).
#[derive(Default)]
struct Loader {
    modules: HashMap<(PathBuf, &'static str), Arc<Module>>,
}

impl Loader {
    fn load(&mut self, dir: &Path, host: &'static str) -> Result<Arc<Module>, ConfigError> {
        let key = (dir.to_path_buf(), host);
        if let Some(module) = self.modules.get(&key) {
            return Ok(module.clone());
        }
        let module = Arc::new(config::load_module(dir, host)?);
        self.modules.insert(key, module.clone());
        Ok(module)
    }
}
