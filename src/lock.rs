//! The `lock` command: runs the pipeline discover → load → resolve → hash → write over
//! every root module (and Terragrunt unit) and reports one outcome per root.
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
use crate::diff;
use crate::discover::{self, normalize_path};
use crate::drift;
use crate::hash::Hash;
use crate::index::{HashIndex, IndexOptions, IndexStats, PackageError};
use crate::lockfile::{self, Flavor, LockFile};
use crate::mirror::{Sources, VersionsError, VersionsFound};
use crate::progress::Progress;
use crate::registry::{RegistryClient, RegistryError};
use crate::resolve::{self, ProviderReqs};
use crate::terragrunt::{self, TerragruntError, UnitConfig};
use crate::version::Version;
use crate::write::{self, WriteOutcome, LOCK_FILE_NAME};

/// Everything the `lock` command needs, already validated by the CLI layer.
pub struct LockOptions {
    /// Directories to lock or search. A path naming a *file* switches to changed-files
    /// mode (what pre-commit passes): the roots under the current directory whose
    /// configuration contains one of the files are locked, and no others.
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
    /// Where packages come from: each provider's registry, or mirrors (`--fs-mirror`,
    /// `--net-mirror`, `--use-cli-config-installation`).
    pub sources: Sources,
    /// Write nothing; report what would change, with a diff.
    pub check: bool,
    pub progress: Arc<dyn Progress>,
}

/// What happened to one root.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The lock file was written (in check mode: would be) for the first time.
    Created,
    /// The lock file was (would be) replaced.
    Updated,
    Unchanged,
    /// Not attempted, for a reason given in the detail (a Terragrunt unit whose remote
    /// source has not been downloaded).
    Skipped,
    Failed,
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Created => "created",
            Outcome::Updated => "updated",
            Outcome::Unchanged => "unchanged",
            Outcome::Skipped => "skipped",
            Outcome::Failed => "failed",
        }
    }
}

/// The outcome for one root module or Terragrunt unit.
#[derive(Debug, Clone)]
pub struct RootReport {
    /// The directory holding the lock file.
    pub dir: PathBuf,
    /// True for a Terragrunt unit.
    pub unit: bool,
    pub outcome: Outcome,
    /// Why it failed or was skipped.
    pub detail: Option<String>,
    /// In check mode, a unified diff from the current to the expected lock file.
    pub diff: Option<String>,
}

/// The outcome of a whole run.
#[derive(Debug)]
pub struct RunReport {
    pub check: bool,
    pub roots: Vec<RootReport>,
    pub warnings: Vec<String>,
    pub stats: IndexStats,
    pub elapsed: Duration,
}

impl RunReport {
    pub fn count(&self, outcome: Outcome) -> usize {
        self.roots.iter().filter(|r| r.outcome == outcome).count()
    }

    pub fn failed(&self) -> usize {
        self.count(Outcome::Failed)
    }

    /// Whether the run should exit non-zero: a root failed, or (in check mode) a lock
    /// file is missing or out of date.
    pub fn is_failure(&self) -> bool {
        self.failed() > 0
            || (self.check
                && self
                    .roots
                    .iter()
                    .any(|r| matches!(r.outcome, Outcome::Created | Outcome::Updated)))
    }
}

/// An error that stops the run before any root is attempted.
#[derive(Debug, thiserror::Error)]
pub enum FatalError {
    #[error(transparent)]
    Discover(#[from] discover::DiscoverError),
    #[error("{0}: no such file or directory")]
    NotFound(PathBuf),
}

/// A root as it moves through the stages; `failed` ends its journey early.
struct Root {
    dir: PathBuf,
    /// A Terragrunt unit, also when it failed or was skipped before its config loaded.
    is_unit: bool,
    flavor: Flavor,
    old_bytes: Option<Vec<u8>>,
    old: Option<LockFile>,
    reqs: BTreeMap<ProviderAddr, ProviderReqs>,
    /// Every module directory of the root's configuration (for changed-files mode).
    modules: Vec<PathBuf>,
    selected: BTreeMap<ProviderAddr, Version>,
    failed: Option<String>,
    skipped: Option<String>,
}

impl Root {
    fn new(dir: &Path, flavor: Flavor) -> Root {
        Root {
            dir: dir.to_path_buf(),
            is_unit: false,
            flavor,
            old_bytes: None,
            old: None,
            reqs: BTreeMap::new(),
            modules: Vec::new(),
            selected: BTreeMap::new(),
            failed: None,
            skipped: None,
        }
    }

    fn active(&self) -> bool {
        self.failed.is_none() && self.skipped.is_none()
    }
}

pub async fn run(options: LockOptions) -> Result<RunReport, FatalError> {
    let started = Instant::now();
    crate::interrupt::install();
    let mut warnings = Vec::new();
    let mut loader = Loader::default();

    // discover + load
    let changed_files = changed_files(&options.paths)?;
    let (search, recursive) = match &changed_files {
        Some(_) => (vec![PathBuf::from(".")], true),
        None => (options.paths.clone(), options.recursive),
    };
    let (module_roots, unit_dirs) =
        find_all_roots(&search, recursive, &options, &mut loader, &mut warnings)?;

    let mut roots: Vec<Root> = Vec::new();
    for dir in &module_roots {
        roots.push(prepare_root(
            dir,
            None,
            &options,
            &mut loader,
            &mut warnings,
        ));
    }
    for (dir, unit) in unit_dirs {
        roots.push(prepare_unit(
            &dir,
            unit,
            &options,
            &mut loader,
            &mut warnings,
        ));
    }
    if let Some(files) = &changed_files {
        roots.retain(|root| affected_by(root, files));
    }
    roots.sort_by(|a, b| a.dir.cmp(&b.dir));

    // resolve: fetch each needed version list once, then select per root.
    let mut wanted_lists: BTreeSet<ProviderAddr> = BTreeSet::new();
    for root in roots.iter().filter(|r| r.active()) {
        for (addr, reqs) in &root.reqs {
            let locked = root.old.as_ref().and_then(|l| l.providers.get(addr));
            if resolve::needs_version_list(reqs, locked.map(|l| &l.version), options.upgrade) {
                wanted_lists.insert(addr.clone());
            }
        }
    }
    let lists = fetch_version_lists(&options, wanted_lists, &mut warnings).await;
    for root in roots.iter_mut().filter(|r| r.active()) {
        select_versions(root, &lists, options.upgrade);
    }

    // hash: every unique package once.
    let mut packages: BTreeSet<(ProviderAddr, Version)> = BTreeSet::new();
    for root in roots.iter().filter(|r| r.active()) {
        for (addr, v) in &root.selected {
            packages.insert((addr.clone(), v.clone()));
        }
    }
    let index = HashIndex::new(
        options.client.clone(),
        options.cache.clone(),
        options.index.clone(),
        options.progress.clone(),
    );
    let platforms = &options.platforms;
    let sources = &options.sources;
    let results = futures::future::join_all(packages.iter().map(|(addr, v)| {
        let index = &index;
        async move {
            let registry =
                |wanted: Vec<Platform>| async move { index.package_hashes(addr, v, &wanted).await };
            let hashes = sources.package_hashes(addr, v, platforms, registry).await;
            ((addr.clone(), v.clone()), hashes)
        }
    }))
    .await;
    let hashes: HashMap<(ProviderAddr, Version), Result<BTreeSet<Hash>, PackageError>> =
        results.into_iter().collect();

    // write
    let mut reports = Vec::new();
    for root in roots {
        let report = finish_root(&root, &hashes, options.check);
        options
            .progress
            .root_done(&report.dir, report.outcome.as_str());
        reports.push(report);
    }
    Ok(RunReport {
        check: options.check,
        roots: reports,
        warnings,
        stats: index.stats(),
        elapsed: started.elapsed(),
    })
}

/// The files among `paths`, if any path names a file (changed-files mode). Mixing
/// files and directories is allowed: a directory then stands for the files in it.
fn changed_files(paths: &[PathBuf]) -> Result<Option<Vec<PathBuf>>, FatalError> {
    let mut any_file = false;
    for path in paths {
        match std::fs::metadata(path) {
            Ok(meta) => any_file |= meta.is_file(),
            // A deleted file is a change too (pre-commit passes it when a file is removed).
            Err(_) if path.extension().is_some() => any_file = true,
            Err(_) => return Err(FatalError::NotFound(path.clone())),
        }
    }
    Ok(any_file.then(|| {
        paths
            .iter()
            .map(|p| {
                let p = normalize_path(p);
                if p.is_dir() {
                    p.join(LOCK_FILE_NAME)
                } else {
                    p
                }
            })
            .collect()
    }))
}

/// Whether a changed file belongs to the root's configuration: a file in one of its
/// module directories, its lock file, or its Terragrunt unit.
fn affected_by(root: &Root, files: &[PathBuf]) -> bool {
    let root_dir = normalize_path(&root.dir);
    files.iter().any(|file| {
        let dir = normalize_path(file.parent().unwrap_or(Path::new(".")));
        dir == root_dir || root.modules.iter().any(|m| normalize_path(m) == dir)
    })
}

/// A Terragrunt unit directory and its configuration (or why it has none).
type LoadedUnit = (PathBuf, Result<UnitConfig, TerragruntError>);

/// Every root module and Terragrunt unit below `paths`.
fn find_all_roots(
    paths: &[PathBuf],
    recursive: bool,
    options: &LockOptions,
    loader: &mut Loader,
    warnings: &mut Vec<String>,
) -> Result<(Vec<PathBuf>, Vec<LoadedUnit>), FatalError> {
    for path in paths {
        if !path.exists() {
            return Err(FatalError::NotFound(path.clone()));
        }
    }
    let units: Vec<LoadedUnit> = terragrunt::find_units(paths, recursive, &options.ignore)
        .into_iter()
        .map(|dir| {
            let unit = terragrunt::load_unit(&dir, &terragrunt::find_repo_root(&dir));
            (dir, unit)
        })
        .collect();
    let unit_set: BTreeSet<PathBuf> = units.iter().map(|(u, _)| normalize_path(u)).collect();
    let module_paths: Vec<PathBuf> = if recursive {
        paths.to_vec()
    } else {
        // An explicitly named unit is not also a plain module root.
        paths
            .iter()
            .filter(|p| !unit_set.contains(&normalize_path(p)))
            .cloned()
            .collect()
    };
    if module_paths.is_empty() {
        return Ok((Vec::new(), units));
    }
    let discovery = discover::discover(&module_paths, recursive, &options.ignore)?;
    warnings.extend(
        discovery
            .warnings
            .iter()
            .map(|w| format!("{}: {}", w.path.display(), w.message)),
    );
    if !recursive {
        return Ok((discovery.dirs, units));
    }
    // Root detection needs every module's calls. Directories that fail to load stay
    // candidates, so their failure is reported instead of silently dropped.
    let mut loaded = Vec::new();
    let mut unloadable = Vec::new();
    for dir in &discovery.dirs {
        let flavor = options
            .flavor
            .unwrap_or_else(|| detect_flavor(dir, read_lock(dir).ok().flatten().as_deref()));
        match loader.load(dir, flavor.default_registry()) {
            Ok(module) => loaded.push((dir.clone(), module)),
            Err(_) => unloadable.push(dir.clone()),
        }
    }
    // Units own their directory's lock file, and the modules they use as sources are
    // not roots of their own unless they say so (a lock file or a backend).
    let unit_sources: BTreeSet<PathBuf> = units
        .iter()
        .filter_map(|(_, unit)| unit.as_ref().ok())
        .map(|config| normalize_path(config.module_dir()))
        .collect();
    let roots = tree::find_roots(&loaded, &unloadable)
        .into_iter()
        .filter(|dir| {
            let dir_n = normalize_path(dir);
            if unit_set.contains(&dir_n) {
                return false;
            }
            if unit_sources.contains(&dir_n) {
                let has_backend = loaded.iter().any(|(d, m)| d == dir && m.has_backend);
                return dir.join(LOCK_FILE_NAME).exists() || has_backend;
            }
            true
        })
        .collect();
    Ok((roots, units))
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

/// Reads the old lock file and decides the flavor; `false` means the root failed.
fn read_old_lock(root: &mut Root, options: &LockOptions) -> bool {
    let lock_path = root.dir.join(LOCK_FILE_NAME);
    match read_lock(&root.dir) {
        Ok(bytes) => root.old_bytes = bytes,
        Err(e) => {
            root.failed = Some(format!("{}: {e}", lock_path.display()));
            return false;
        }
    }
    if options.flavor.is_none() {
        root.flavor = detect_flavor(&root.dir, root.old_bytes.as_deref());
    }
    if let Some(bytes) = &root.old_bytes {
        let parsed = std::str::from_utf8(bytes)
            .map_err(|_| "not valid UTF-8".to_string())
            .and_then(|text| {
                lockfile::parse(text, root.flavor.default_registry()).map_err(|e| e.to_string())
            });
        match parsed {
            Ok(lock) => root.old = Some(lock),
            Err(e) => {
                root.failed = Some(format!(
                    "{}: {e}\n(the lock file was left untouched)",
                    lock_path.display()
                ));
                return false;
            }
        }
    }
    true
}

/// A plain root module: its lock file and its module tree's requirements.
fn prepare_root(
    dir: &Path,
    unit: Option<UnitConfig>,
    options: &LockOptions,
    loader: &mut Loader,
    warnings: &mut Vec<String>,
) -> Root {
    let mut root = Root::new(dir, options.flavor.unwrap_or(Flavor::Terraform));
    root.modules.push(dir.to_path_buf());
    if !read_old_lock(&mut root, options) {
        return root;
    }
    let host = root.flavor.default_registry();
    let tree = match &unit {
        Some(unit) => terragrunt::unit_requirements(unit, host, |d: &Path| loader.load(d, host)),
        None => tree::module_tree_requirements(dir, |d: &Path| loader.load(d, host)),
    };
    let tree = match tree {
        Ok(tree) => tree,
        Err(e) => {
            root.failed = Some(e.to_string());
            return root;
        }
    };
    warnings.extend(tree.warnings.iter().map(|w| w.to_string()));
    root.modules.extend(tree.modules.iter().cloned());
    match resolve::collect(&tree.requirements) {
        Ok(reqs) => root.reqs = reqs,
        Err(e) => root.failed = Some(e.to_string()),
    }
    root
}

/// A Terragrunt unit: its effective configuration is the source module with the
/// unit's own and generated files laid over it; its lock file sits beside
/// `terragrunt.hcl`.
fn prepare_unit(
    dir: &Path,
    unit: Result<UnitConfig, TerragruntError>,
    options: &LockOptions,
    loader: &mut Loader,
    warnings: &mut Vec<String>,
) -> Root {
    match unit {
        Ok(unit) => {
            let module_dir = unit.module_dir().to_path_buf();
            let mut root = prepare_root(dir, Some(unit), options, loader, warnings);
            root.is_unit = true;
            root.modules.push(module_dir);
            root
        }
        Err(e) => {
            let mut root = Root::new(dir, options.flavor.unwrap_or(Flavor::Terraform));
            root.is_unit = true;
            if e.is_skip() {
                root.skipped = Some(e.to_string());
            } else {
                root.failed = Some(e.to_string());
            }
            root
        }
    }
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
        let found = options
            .sources
            .versions(&addr, || registry_versions(options, &addr, ttl))
            .await;
        (addr, found.map(|f| (f.versions, f.warnings)))
    });
    let mut lists = HashMap::new();
    for (addr, raw) in futures::future::join_all(fetches).await {
        let parsed = raw.map(|(raw, registry_warnings)| {
            for w in registry_warnings {
                warnings.push(format!("{addr}: the registry says: {w}"));
            }
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

/// The origin registry's version list: from the cache while fresh, else fetched and
/// cached. Mirror lists are never cached: they are another source's answer.
async fn registry_versions(
    options: &LockOptions,
    addr: &ProviderAddr,
    ttl: Duration,
) -> Result<VersionsFound, VersionsError> {
    if let Some(versions) = options.cache.versions(addr, ttl) {
        return Ok(VersionsFound {
            versions,
            warnings: Vec::new(),
        });
    }
    let Some(client) = options.client.as_ref().filter(|_| !options.offline) else {
        return Err(VersionsError {
            message: format!("offline, and the cache holds no version list for {addr}"),
            not_found: false,
        });
    };
    match client.versions(addr).await {
        Ok(list) => {
            let raw: Vec<String> = list.versions.iter().map(|v| v.version.clone()).collect();
            options.cache.put_versions(addr, &raw);
            Ok(VersionsFound {
                versions: raw,
                warnings: list.warnings,
            })
        }
        Err(e) => Err(VersionsError {
            not_found: matches!(e, RegistryError::ProviderNotFound { .. }),
            message: e.to_string(),
        }),
    }
}

fn select_versions(root: &mut Root, lists: &VersionLists, upgrade: bool) {
    let mut errors = Vec::new();
    for (addr, reqs) in &root.reqs {
        let locked = root
            .old
            .as_ref()
            .and_then(|l| l.providers.get(addr))
            .map(|l| &l.version);
        let available: &[Version] = match lists.get(addr) {
            Some(Ok(list)) => list,
            // Another root needed the list; this one fails only if it needs it too.
            Some(Err(e)) if resolve::needs_version_list(reqs, locked, upgrade) => {
                errors.push(e.clone());
                continue;
            }
            Some(Err(_)) | None => &[],
        };
        match resolve::select(addr, reqs, locked, available, upgrade) {
            Ok(v) => {
                root.selected.insert(addr.clone(), v);
            }
            Err(e) => errors.push(e.to_string()),
        }
    }
    if !errors.is_empty() {
        root.failed = Some(errors.join("\n"));
    }
}

fn finish_root(
    root: &Root,
    hashes: &HashMap<(ProviderAddr, Version), Result<BTreeSet<Hash>, PackageError>>,
    check: bool,
) -> RootReport {
    let mut report = RootReport {
        dir: root.dir.clone(),
        unit: root.is_unit,
        outcome: Outcome::Failed,
        detail: None,
        diff: None,
    };
    if let Some(reason) = &root.skipped {
        report.outcome = Outcome::Skipped;
        report.detail = Some(reason.clone());
        return report;
    }
    if let Some(reason) = &root.failed {
        report.detail = Some(reason.clone());
        return report;
    }
    let content = match render_root(root, hashes) {
        Ok(content) => content,
        Err(reason) => {
            report.detail = Some(reason);
            return report;
        }
    };
    let path = root.dir.join(LOCK_FILE_NAME);
    let old = root.old_bytes.as_deref();
    let written = if check {
        Ok(write::compare(old, &content))
    } else {
        write::write_if_changed(&path, old, &content).map_err(|e| e.to_string())
    };
    match written {
        Ok(outcome) => {
            report.outcome = match outcome {
                WriteOutcome::Created => Outcome::Created,
                WriteOutcome::Updated => Outcome::Updated,
                WriteOutcome::Unchanged => Outcome::Unchanged,
            };
            if check && outcome != WriteOutcome::Unchanged {
                let old_text = old.map(String::from_utf8_lossy);
                report.detail = Some(drift::explain(old_text.as_deref(), &content).join("\n"));
                let label = path.display().to_string();
                let label = label.strip_prefix("./").unwrap_or(&label);
                let old_text = old.map(String::from_utf8_lossy).unwrap_or_default();
                let old_label = match old {
                    Some(_) => format!("a/{label}"),
                    None => "/dev/null".to_string(),
                };
                report.diff = Some(diff::unified(
                    &old_text,
                    &content,
                    &old_label,
                    &format!("b/{label}"),
                ));
            }
        }
        Err(reason) => report.detail = Some(reason),
    }
    report
}

/// Builds the new lock file from the old one (spec §9 merge, plus `init`'s pruning of
/// providers no longer required) and renders it.
fn render_root(
    root: &Root,
    hashes: &HashMap<(ProviderAddr, Version), Result<BTreeSet<Hash>, PackageError>>,
) -> Result<String, String> {
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
    Ok(lock.render())
}
