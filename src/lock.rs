//! The `lock` command: runs the pipeline discover → load → resolve → hash → write over
//! every root module and reports one outcome per root.
//!
//! A failure in one root (bad configuration, a broken lock file, no matching version, a
//! package that does not verify) fails that root only; every other root is still
//! written. Work shared between roots is done once: each module directory is parsed
//! once, each provider's version list is fetched once, and each unique
//! (provider, version) package is hashed once by the [`HashIndex`].

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::addr::{Platform, ProviderAddr};
use crate::cache::Cache;
use crate::config::{self, tree, ConfigError, Module};
use crate::discover;
use crate::hash::Hash;
use crate::index::{HashIndex, IndexOptions, IndexStats, PackageError};
use crate::lockfile::{self, Flavor, LockFile};
use crate::registry::RegistryClient;
use crate::resolve::{self, ProviderReqs};
use crate::version::Version;
use crate::write::{self, WriteOutcome, LOCK_FILE_NAME};

/// Everything the `lock` command needs, already validated by the CLI layer.
pub struct LockOptions {
    pub paths: Vec<PathBuf>,
    pub recursive: bool,
    pub ignore: Vec<regex::Regex>,
    pub platforms: Vec<Platform>,
    pub upgrade: bool,
    /// Forces the flavor of every root; `None` detects it per root.
    pub flavor: Option<Flavor>,
    pub cache: Cache,
    pub offline: bool,
    pub versions_ttl: Duration,
    pub index: IndexOptions,
    /// `None` when offline.
    pub client: Option<RegistryClient>,
}

/// The outcome for one root module.
#[derive(Debug)]
pub struct RootReport {
    pub dir: PathBuf,
    pub result: Result<WriteOutcome, String>,
}

/// The outcome of a whole run.
#[derive(Debug)]
pub struct RunReport {
    pub roots: Vec<RootReport>,
    pub warnings: Vec<String>,
    pub stats: IndexStats,
    pub elapsed: Duration,
}

impl RunReport {
    pub fn failed(&self) -> usize {
        self.roots.iter().filter(|r| r.result.is_err()).count()
    }
}

/// An error that stops the run before any root is attempted.
#[derive(Debug, thiserror::Error)]
pub enum FatalError {
    #[error(transparent)]
    Discover(#[from] discover::DiscoverError),
}

/// A root as it moves through the stages; `failed` ends its journey early.
struct Root {
    dir: PathBuf,
    flavor: Flavor,
    old_bytes: Option<Vec<u8>>,
    old: Option<LockFile>,
    reqs: BTreeMap<ProviderAddr, ProviderReqs>,
    selected: BTreeMap<ProviderAddr, Version>,
    failed: Option<String>,
}

pub async fn run(options: LockOptions) -> Result<RunReport, FatalError> {
    let started = Instant::now();
    let mut warnings = Vec::new();

    // discover + load
    let discovery = discover::discover(&options.paths, options.recursive, &options.ignore)?;
    warnings.extend(
        discovery
            .warnings
            .iter()
            .map(|w| format!("{}: {}", w.path.display(), w.message)),
    );
    let dirs = discovery.dirs;
    let mut loader = Loader::default();
    let root_dirs: Vec<PathBuf> = if options.recursive {
        // Root detection needs every module's calls. Directories that fail to load stay
        // candidates, so their failure is reported instead of silently dropped.
        let mut loaded = Vec::new();
        let mut unloadable = Vec::new();
        for dir in &dirs {
            let host =
                detect_flavor(dir, read_lock(dir).ok().flatten().as_deref()).default_registry();
            match loader.load(dir, host) {
                Ok(module) => loaded.push((dir.clone(), module)),
                Err(_) => unloadable.push(dir.clone()),
            }
        }
        tree::find_roots(&loaded, &unloadable)
    } else {
        dirs.clone()
    };

    let mut roots: Vec<Root> = root_dirs
        .iter()
        .map(|dir| prepare_root(dir, &options, &mut loader, &mut warnings))
        .collect();

    // resolve: fetch each needed version list once, then select per root.
    let mut wanted_lists: BTreeSet<ProviderAddr> = BTreeSet::new();
    for root in roots.iter().filter(|r| r.failed.is_none()) {
        for (addr, reqs) in &root.reqs {
            let locked = root.old.as_ref().and_then(|l| l.providers.get(addr));
            if resolve::needs_version_list(reqs, locked.map(|l| &l.version), options.upgrade) {
                wanted_lists.insert(addr.clone());
            }
        }
    }
    let lists = fetch_version_lists(&options, wanted_lists, &mut warnings).await;
    for root in roots.iter_mut().filter(|r| r.failed.is_none()) {
        select_versions(root, &lists, options.upgrade);
    }

    // hash: every unique package once.
    let mut packages: BTreeSet<(ProviderAddr, Version)> = BTreeSet::new();
    for root in roots.iter().filter(|r| r.failed.is_none()) {
        for (addr, v) in &root.selected {
            packages.insert((addr.clone(), v.clone()));
        }
    }
    let index = HashIndex::new(
        options.client.clone(),
        options.cache.clone(),
        options.index.clone(),
    );
    let platforms = &options.platforms;
    let results = futures::future::join_all(packages.iter().map(|(addr, v)| {
        let index = &index;
        async move {
            (
                (addr.clone(), v.clone()),
                index.package_hashes(addr, v, platforms).await,
            )
        }
    }))
    .await;
    let hashes: HashMap<(ProviderAddr, Version), Result<BTreeSet<Hash>, PackageError>> =
        results.into_iter().collect();

    // write
    let mut reports = Vec::new();
    for root in roots {
        let result = match root.failed {
            Some(reason) => Err(reason),
            None => write_root(&root, &hashes),
        };
        reports.push(RootReport {
            dir: root.dir,
            result,
        });
    }
    Ok(RunReport {
        roots: reports,
        warnings,
        stats: index.stats(),
        elapsed: started.elapsed(),
    })
}

/// Parses each module directory once per default registry host (a module shared by a
/// Terraform and an OpenTofu root reads differently for each).
#[derive(Default)]
struct Loader {
    modules: HashMap<(PathBuf, &'static str), Arc<Module>>,
}

impl Loader {
    /// Successes are kept; a failure is not, so asking again yields the error again
    /// (failures are rare and the error type is not `Clone`).
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

fn read_lock(dir: &Path) -> std::io::Result<Option<Vec<u8>>> {
    match std::fs::read(dir.join(LOCK_FILE_NAME)) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// Reads the old lock file, decides the flavor and gathers the module tree's
/// requirements.
fn prepare_root(
    dir: &Path,
    options: &LockOptions,
    loader: &mut Loader,
    warnings: &mut Vec<String>,
) -> Root {
    let mut root = Root {
        dir: dir.to_path_buf(),
        flavor: options.flavor.unwrap_or(Flavor::Terraform),
        old_bytes: None,
        old: None,
        reqs: BTreeMap::new(),
        selected: BTreeMap::new(),
        failed: None,
    };
    let lock_path = dir.join(LOCK_FILE_NAME);
    match read_lock(dir) {
        Ok(bytes) => root.old_bytes = bytes,
        Err(e) => {
            root.failed = Some(format!("{}: {e}", lock_path.display()));
            return root;
        }
    }
    if options.flavor.is_none() {
        root.flavor = detect_flavor(dir, root.old_bytes.as_deref());
    }
    let host = root.flavor.default_registry();
    if let Some(bytes) = &root.old_bytes {
        let parsed = std::str::from_utf8(bytes)
            .map_err(|_| "not valid UTF-8".to_string())
            .and_then(|text| lockfile::parse(text, host).map_err(|e| e.to_string()));
        match parsed {
            Ok(lock) => root.old = Some(lock),
            Err(e) => {
                root.failed = Some(format!(
                    "{}: {e} (the file was left untouched)",
                    lock_path.display()
                ));
                return root;
            }
        }
    }
    let tree = tree::module_tree_requirements(dir, |d: &Path| loader.load(d, host));
    let tree = match tree {
        Ok(tree) => tree,
        Err(e) => {
            root.failed = Some(e.to_string());
            return root;
        }
    };
    warnings.extend(tree.warnings.iter().map(|w| w.to_string()));
    match resolve::collect(&tree.requirements) {
        Ok(reqs) => root.reqs = reqs,
        Err(e) => root.failed = Some(e.to_string()),
    }
    root
}

/// The flavor of a root without `--flavor`: the existing lock file's header decides,
/// else the presence of `.tofu` files (spec §10).
fn detect_flavor(dir: &Path, old: Option<&[u8]>) -> Flavor {
    if let Some(bytes) = old {
        let text = String::from_utf8_lossy(bytes);
        return if text.lines().take(3).any(|l| l.contains("\"tofu init\"")) {
            Flavor::OpenTofu
        } else {
            Flavor::Terraform
        };
    }
    let has_tofu = std::fs::read_dir(dir)
        .map(|entries| {
            entries.filter_map(Result::ok).any(|e| {
                let name = e.file_name();
                let name = name.to_string_lossy();
                name.ends_with(".tofu") || name.ends_with(".tofu.json")
            })
        })
        .unwrap_or(false);
    if has_tofu {
        Flavor::OpenTofu
    } else {
        Flavor::Terraform
    }
}

type VersionLists = HashMap<ProviderAddr, Result<Vec<Version>, String>>;

async fn fetch_version_lists(
    options: &LockOptions,
    wanted: BTreeSet<ProviderAddr>,
    warnings: &mut Vec<String>,
) -> VersionLists {
    let ttl = if options.offline {
        Duration::MAX
    } else {
        options.versions_ttl
    };
    let fetches = wanted.into_iter().map(|addr| async move {
        if let Some(raw) = options.cache.versions(&addr, ttl) {
            return (addr, Ok(raw));
        }
        let Some(client) = options.client.as_ref().filter(|_| !options.offline) else {
            let msg = format!("offline and the cache holds no version list for {addr}");
            return (addr, Err(msg));
        };
        match client.versions(&addr).await {
            Ok(list) => {
                let raw: Vec<String> = list.versions.iter().map(|v| v.version.clone()).collect();
                options.cache.put_versions(&addr, &raw);
                (addr, Ok(raw))
            }
            Err(e) => (addr, Err(e.to_string())),
        }
    });
    let mut lists = HashMap::new();
    for (addr, raw) in futures::future::join_all(fetches).await {
        let parsed = raw.map(|raw| {
            let mut versions = Vec::new();
            for text in raw {
                match Version::parse(&text) {
                    Ok(v) => versions.push(v),
                    Err(_) => warnings.push(format!(
                        "{addr}: the registry lists an unparsable version {text:?}; ignored"
                    )),
                }
            }
            versions
        });
        lists.insert(addr, parsed);
    }
    lists
}

fn select_versions(root: &mut Root, lists: &VersionLists, upgrade: bool) {
    for (addr, reqs) in &root.reqs {
        let locked = root
            .old
            .as_ref()
            .and_then(|l| l.providers.get(addr))
            .map(|l| &l.version);
        let available: &[Version] = match lists.get(addr) {
            Some(Ok(list)) => list,
            Some(Err(e)) => {
                root.failed = Some(e.clone());
                return;
            }
            None => &[],
        };
        match resolve::select(addr, reqs, locked, available, upgrade) {
            Ok(v) => {
                root.selected.insert(addr.clone(), v);
            }
            Err(e) => {
                root.failed = Some(e.to_string());
                return;
            }
        }
    }
}

/// Builds the new lock file from the old one (spec §9 merge, plus `init`'s pruning of
/// providers no longer required), renders it and writes it if it changed.
fn write_root(
    root: &Root,
    hashes: &HashMap<(ProviderAddr, Version), Result<BTreeSet<Hash>, PackageError>>,
) -> Result<WriteOutcome, String> {
    let mut lock = LockFile {
        flavor: root.old.as_ref().map(|l| l.flavor).unwrap_or(root.flavor),
        providers: BTreeMap::new(),
    };
    let mut errors = Vec::new();
    for (addr, version) in &root.selected {
        let key = (addr.clone(), version.clone());
        let new_hashes = match hashes.get(&key) {
            Some(Ok(h)) => h.clone(),
            Some(Err(e)) => {
                errors.push(e.to_string());
                continue;
            }
            None => {
                errors.push(format!("{addr} {version}: no hashes were computed"));
                continue;
            }
        };
        let old = root.old.as_ref().and_then(|l| l.providers.get(addr));
        let constraints = root
            .reqs
            .get(addr)
            .map(|r| r.constraints.clone())
            .unwrap_or_default();
        lock.providers.insert(
            addr.clone(),
            lockfile::merge_providers_lock(old, version.clone(), constraints, new_hashes),
        );
    }
    if !errors.is_empty() {
        return Err(errors.join("\n"));
    }
    let content = lock.render();
    write::write_if_changed(
        &root.dir.join(LOCK_FILE_NAME),
        root.old_bytes.as_deref(),
        &content,
    )
    .map_err(|e| e.to_string())
}
