//! Stage 2 of the pipeline (docs/design.md "load"): from discovered directories to roots, each
//! with its old lock file, its flavor and the provider requirements of its whole module
//! tree ([`Loaded`]).
//!
//! A directory is a root when it has a lock file, a backend or cloud block, or when no
//! other discovered module calls it as a local module (`config::tree::find_roots`); a
//! Terragrunt unit is a root of its own, and the modules units use as sources are not,
//! unless they say so. Terragrunt stacks are first expanded into the units they generate
//! ([`tg_stacks`]); a Terraform Stack is one root ([`tf_stacks`]). Every module directory
//! is parsed once per default registry host
//! ([`Loader`]); a module shared by a Terraform and an OpenTofu root reads differently for
//! each.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use rayon::prelude::*;

use crate::discover::Discovery;
use crate::parallel;
use crate::root::{LockProblem, Root, RootError, RootKind};
use crate::warning::Warning;
use tfsum_config::early::{RootInputs, Rules, ValueInputs};
use tfsum_config::edit::Edited;
use tfsum_config::parsed::ParsedFiles;
use tfsum_config::terragrunt::{self, UnitConfig, UnitSource};
use tfsum_config::tree::{self, ModuleReader, Remote};
use tfsum_config::{self as config, test_files, ConfigError, Module, ProviderReqs};
use tfsum_disk::atomic::link_target;
use tfsum_disk::walk::{EntryType, Listings};
use tfsum_sources::modules::{FetchedModule, ModuleError, ModuleFetcher};
use tfsum_vocab::addr::ProviderAddr;
use tfsum_vocab::lockfile::{self, Flavor, LockFile, LockForm, LOCK_FILE_NAME};
use tfsum_vocab::module_source::ModuleSource as RemoteSource;
use tfsum_vocab::paths::{is_tofu_file_name, normalize_path};

mod tf_stacks;
mod tg_stacks;

use tf_stacks::{ModuleConstraint, TfStacks};
use tg_stacks::expand_stacks;

/// A root whose configuration and lock file were read.
#[derive(Debug)]
pub struct Loaded {
    pub flavor: Flavor,
    pub old: Option<OldLock>,
    /// What the root's module tree asks of each lockable provider.
    pub reqs: BTreeMap<ProviderAddr, ProviderReqs>,
    /// Every module directory of the root's configuration (for changed-files mode).
    pub modules: Vec<PathBuf>,
    /// The var files its module sources' values came from (for changed-files mode); none
    /// when every source is a literal.
    pub value_files: Vec<PathBuf>,
    /// Local modules its tree reaches through calls whose source is an expression.
    pub evaluated_local: Vec<PathBuf>,
    /// Its module calls whose source or version is an expression, evaluated.
    pub evaluated_calls: Vec<tfsum_config::tree::EvaluatedCall>,
    /// Where the lock file is written: its own path, or the target of a lock file that
    /// is a link within the tree.
    pub lock_path: PathBuf,
    /// For a unit a Terragrunt stack generates: the stack's directory, below which the
    /// write stage creates the lock file's directories when they do not exist yet.
    pub create_below: Option<PathBuf>,
    /// Its result depends on its files alone: a root module whose tree calls no remote
    /// module, writes no source or version as an expression, reads no var file and
    /// warned of nothing. Only such a root may be answered from the index
    /// ([`crate::index`]) when none of its files changed.
    pub self_contained: bool,
    /// A Terraform Stack's: its lock file takes the stacks plugin's form.
    pub stack: Option<Box<StackLoaded>>,
}

/// What a Terraform Stack's root carries besides what every root does ([`tf_stacks`]).
#[derive(Debug, Default)]
pub struct StackLoaded {
    /// The constraints its components' modules declare on providers the stack locks:
    /// not applied, but checked against the versions chosen for a warning.
    pub module_constraints: Vec<ModuleConstraint>,
}

impl Loaded {
    /// The form its lock file is written in.
    pub(crate) fn lock_form(&self) -> LockForm {
        match self.stack {
            Some(_) => LockForm::Stack,
            None => LockForm::Init,
        }
    }
}

/// The lock file a root already has.
#[derive(Debug)]
pub struct OldLock {
    pub bytes: Vec<u8>,
    pub lock: LockFile,
    /// `bytes` are exactly `lock.render()`: an equal new lock file leaves them unchanged.
    pub rendered: bool,
}

impl OldLock {
    /// The lock file of the root `dir`, its `bytes` parsed by `parse` (which notes
    /// whether they are its own rendering); one that does not parse stops the root.
    fn read(
        dir: &Path,
        bytes: Vec<u8>,
        parse: impl FnOnce(&[u8]) -> Result<(LockFile, bool), lockfile::ReadError>,
    ) -> Result<OldLock, RootError> {
        let (lock, rendered) = parse(&bytes).map_err(|e| RootError::LockFile {
            path: dir.join(LOCK_FILE_NAME),
            problem: LockProblem::Unreadable(e),
        })?;
        Ok(OldLock {
            bytes,
            lock,
            rendered,
        })
    }
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
    /// Where the variables of module `source`/`version` expressions take their values.
    pub values: Arc<ValueInputs>,
}

/// Every root of `discovery`, in path order, loaded or stopped; and the warnings met on
/// the way (empty modules, …). Remote module calls are fetched through `fetcher` in
/// rounds: every root is walked with what has been fetched so far, the calls still
/// missing are fetched together (each package once, in parallel), and the roots that
/// waited on them are walked again, until none waits.
pub async fn roots(
    discovery: &Discovery,
    options: &LoadOptions,
    fetcher: &ModuleFetcher,
) -> (Vec<Root<Loaded>>, Vec<Warning>) {
    roots_edited(discovery, options, fetcher, Arc::default()).await
}

/// [`roots`] over the configuration as `tfsum upgrade` will leave it: the files in
/// `edited` are read with their new text (`tfsum_config::edit`).
pub(crate) async fn roots_edited(
    discovery: &Discovery,
    options: &LoadOptions,
    fetcher: &ModuleFetcher,
    edited: Arc<Edited>,
) -> (Vec<Root<Loaded>>, Vec<Warning>) {
    let loading = roots_with(discovery, options, fetcher, edited, None).await;
    (loading.roots, loading.warnings)
}

/// What a run knew before loading (the configuration index, [`crate::index`]):
/// what root detection reads of module directories unchanged since, and which module
/// roots need opening at all.
pub trait Prior: Sync {
    /// What root detection would read of the module directory `dir` now, if known.
    fn module(&self, dir: &Path) -> Option<ModuleFacts>;
    /// Whether to open and walk the module root `dir`; a root not opened is named in
    /// [`Loading::skipped`]. Terragrunt units are always opened.
    fn open(&self, dir: &Path) -> bool;
}

/// What root detection reads of one module directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModuleFacts {
    /// The directories its local calls name ([`tree::local_calls`]).
    pub calls: Vec<PathBuf>,
    pub has_backend: bool,
    /// False when it failed to load: its calls come from a text scan.
    pub loaded: bool,
}

/// What the load stage did with what it knew ([`roots_with`]).
#[derive(Default)]
pub struct Loading {
    /// The roots opened, loaded or failed, in path order.
    pub roots: Vec<Root<Loaded>>,
    pub warnings: Vec<Warning>,
    /// Every module root root detection found, opened or not.
    pub module_roots: Vec<PathBuf>,
    /// The module directories whose facts were read in this run, not known before.
    pub read: Vec<(PathBuf, ModuleFacts)>,
    /// The module roots [`Prior::open`] kept closed.
    pub skipped: Vec<PathBuf>,
}

/// [`roots_edited`], taking what `prior` knows instead of reading it again.
pub async fn roots_with(
    discovery: &Discovery,
    options: &LoadOptions,
    fetcher: &ModuleFetcher,
    edited: Arc<Edited>,
    prior: Option<&dyn Prior>,
) -> Loading {
    let loader = Loader {
        modules: Mutex::default(),
        roots: Mutex::default(),
        edited: edited.clone(),
        listings: &discovery.listings,
        parsed: ParsedFiles::default(),
    };
    let mut warnings: Vec<Warning> = discovery
        .warnings
        .iter()
        .cloned()
        .map(Warning::Discover)
        .collect();
    let stacks = expand_stacks(discovery, fetcher, &edited).await;
    let mut units = load_units(discovery, options, &edited, &stacks.sources);
    units.extend(stacks.units);
    warnings.extend(stacks.warnings);
    let tf_stacks = TfStacks::find(discovery, &edited, &discovery.listings);
    warnings.extend(tf_stacks.warnings(discovery));
    let mut found = FoundRoots::default();
    let (waiting, mut roots) = open_roots(
        discovery,
        units,
        options,
        &loader,
        Templates {
            terragrunt: &stacks.sources,
            tf_stacks: &tf_stacks,
        },
        prior,
        &mut found,
    );
    roots.extend(stacks.failed);
    let (walked, met) = walk_in_rounds(waiting, &loader, fetcher, &options.values).await;
    roots.extend(walked);
    warnings.extend(met);
    let (stack_roots, met) = tf_stacks.load(&loader, fetcher, &options.within).await;
    roots.extend(stack_roots);
    if options.recursive {
        drop_called_through_expressions(&mut roots, &loader);
    }
    warnings.extend(met);
    roots.sort_by(|a, b| a.dir.cmp(&b.dir));
    let Loader {
        modules,
        roots: root_modules,
        parsed,
        ..
    } = loader;
    parallel::drop_aside((modules, root_modules, parsed));
    Loading {
        roots,
        warnings,
        module_roots: found.module_roots,
        read: found.read,
        skipped: found.skipped,
    }
}

/// The directories that are modules of something else, not roots: the sources of
/// Terragrunt stacks (absolute) and Terraform Stacks' directories and sources.
#[derive(Clone, Copy)]
struct Templates<'a> {
    terragrunt: &'a BTreeSet<PathBuf>,
    tf_stacks: &'a TfStacks,
}

/// What root detection found besides the roots it opened.
#[derive(Default)]
struct FoundRoots {
    module_roots: Vec<PathBuf>,
    read: Vec<(PathBuf, ModuleFacts)>,
    skipped: Vec<PathBuf>,
}

/// Drops the module roots that another root's tree calls through a source written as an
/// expression (`source = "./modules/${var.name}"`): root detection cannot evaluate
/// sources, so it took them for roots; the walk knows. A directory with its own lock
/// file or backend stays a root, as one called by a literal source does.
fn drop_called_through_expressions(roots: &mut Vec<Root<Loaded>>, loader: &Loader<'_>) {
    let called: HashSet<PathBuf> = roots
        .iter()
        .filter_map(|root| root.stage.as_ref().ok())
        .flat_map(|loaded| loaded.evaluated_local.iter().cloned())
        .collect();
    if called.is_empty() {
        return;
    }
    roots.retain(|root| {
        let dir = normalize_path(&root.dir);
        root.kind != RootKind::Module
            || !called.contains(&dir)
            || dir.join(LOCK_FILE_NAME).exists()
            || loader
                .load(&dir, Flavor::Terraform.default_registry())
                .is_ok_and(|module| module.has_backend)
    });
}

/// Every Terragrunt unit among discovery's candidates, loaded with the edited files'
/// new text.
fn load_units(
    discovery: &Discovery,
    options: &LoadOptions,
    edited: &Arc<Edited>,
    stack_sources: &BTreeSet<PathBuf>,
) -> Vec<(PathBuf, Result<UnitConfig, terragrunt::TerragruntError>)> {
    terragrunt::find_units(&discovery.unit_dirs, options.recursive)
        .into_iter()
        // A unit a stack copies is a template there (a catalog's unit), unless it keeps
        // a lock file of its own.
        .filter(|dir| {
            !stack_sources.contains(&tfsum_config::paths::absolute(dir))
                || dir.join(LOCK_FILE_NAME).is_file()
        })
        .map(|dir| {
            let read = || terragrunt::load_unit(&dir, &terragrunt::find_repo_root(&dir));
            let unit = terragrunt::with_edited(edited_texts(edited), read).map(|mut unit| {
                edited.apply_to_unit(&mut unit);
                unit
            });
            (dir, unit)
        })
        .collect()
}

/// The edited texts for Terragrunt's reads, when there are any.
fn edited_texts(edited: &Arc<Edited>) -> Option<terragrunt::EditedTexts> {
    (!edited.is_empty()).then(|| edited.clone() as terragrunt::EditedTexts)
}

/// Every root, module roots first and then units, opened (its lock file read and parsed)
/// or failed: the roots ready to walk, and those that failed already.
fn open_roots(
    discovery: &Discovery,
    units: Vec<(PathBuf, Result<UnitConfig, terragrunt::TerragruntError>)>,
    options: &LoadOptions,
    loader: &Loader<'_>,
    templates: Templates<'_>,
    prior: Option<&dyn Prior>,
    found: &mut FoundRoots,
) -> (Vec<OpenRoot>, Vec<Root<Loaded>>) {
    let mut locks = LocksRead::new();
    let (module_roots, read) = find_module_roots(
        discovery, &units, options, loader, &mut locks, templates, prior,
    );
    found.read = read;
    found.module_roots = module_roots.clone();
    let module_roots = match prior {
        Some(prior) => {
            let (open, closed): (Vec<PathBuf>, Vec<PathBuf>) = parallel::run(|| {
                module_roots
                    .into_par_iter()
                    .partition(|dir| prior.open(dir))
            });
            found.skipped = closed;
            open
        }
        None => module_roots,
    };
    let candidates = module_roots
        .into_iter()
        .map(|dir| (dir, RootKind::Module, Ok(None)))
        .chain(units.into_iter().map(|(dir, unit)| {
            let unit = unit.map(Some).map_err(RootError::from);
            (dir, RootKind::Unit, unit)
        }));
    let candidates: Vec<_> = candidates
        .map(|(dir, kind, unit)| {
            let read = locks.remove(&dir);
            (dir, kind, unit, read)
        })
        .collect();
    drop(locks);
    // Lock files are read and parsed on every core, each distinct one once.
    let parsed = ParsedLocks::default();
    let opened: Vec<_> = parallel::run(|| {
        candidates
            .into_par_iter()
            .map(|(dir, kind, unit, read)| {
                let open = unit.and_then(|unit| {
                    open_root(&dir, unit, options, read, &discovery.listings, &parsed)
                });
                (dir, kind, open)
            })
            .collect()
    });
    parallel::drop_aside(parsed);
    let mut waiting = Vec::new();
    let mut failed = Vec::new();
    for (dir, kind, open) in opened {
        match open {
            Ok(open) => waiting.push(open),
            Err(e) => failed.push(Root::failed(dir, kind, e)),
        }
    }
    (waiting, failed)
}

/// Walks the opened roots in rounds, fetching the remote modules they wait on between
/// rounds, until none waits: the roots in the order they finished, and their warnings.
async fn walk_in_rounds(
    mut waiting: Vec<OpenRoot>,
    loader: &Loader<'_>,
    fetcher: &ModuleFetcher,
    values: &ValueInputs,
) -> (Vec<Root<Loaded>>, Vec<Warning>) {
    let mut roots = Vec::new();
    let mut warnings = Vec::new();
    let mut remote = Fetches::default();
    while !waiting.is_empty() {
        let walked: Vec<Walked> = parallel::run(|| {
            waiting
                .into_par_iter()
                .map(|open| walk(open, loader, &remote, values))
                .collect()
        });
        let mut still = Vec::new();
        for walked in walked {
            match walked {
                Walked::Done(root, found) => {
                    warnings.extend(found);
                    roots.push(root);
                }
                Walked::Waiting(open) => still.push(open),
            }
        }
        remote.fetch_wanted(fetcher).await;
        waiting = still;
    }
    (roots, warnings)
}

/// The module directories that are roots. Without `recursive` every given directory is
/// one; with it, root detection needs every module's calls, and directories that fail to
/// load stay candidates, so their failure is reported instead of silently dropped. Units
/// own their directory's lock file, and the modules they use as sources are not roots of
/// their own unless they say so (a lock file or a backend). The lock files read to tell
/// a directory's flavor are kept in `locks`, so that opening the root does not read them
/// again.
fn find_module_roots(
    discovery: &Discovery,
    units: &[(PathBuf, Result<UnitConfig, terragrunt::TerragruntError>)],
    options: &LoadOptions,
    loader: &Loader<'_>,
    locks: &mut LocksRead,
    templates: Templates<'_>,
    prior: Option<&dyn Prior>,
) -> (Vec<PathBuf>, Vec<(PathBuf, ModuleFacts)>) {
    if !options.recursive {
        // A given Terraform Stack is locked as one, whatever `.tf` files it holds.
        let roots = discovery
            .dirs
            .iter()
            .filter(|dir| templates.tf_stacks.may_be_root(dir))
            .cloned()
            .collect();
        return (roots, Vec::new());
    }
    // Each directory's lock file (for its flavor) and configuration (with its test files:
    // a module only a test's `run` block calls is not a root), on every core; unless
    // what root detection reads of it is known already.
    let read: Vec<Result<ModuleFacts, (Option<LockRead>, ModuleFacts)>> = parallel::run(|| {
        discovery
            .dirs
            .par_iter()
            .map(|dir| match prior.and_then(|prior| prior.module(dir)) {
                Some(facts) => Ok(facts),
                None => {
                    let tofu = discovery.tofu_dirs.contains(dir);
                    Err(read_module_facts(
                        dir,
                        tofu,
                        options,
                        &discovery.listings,
                        loader,
                    ))
                }
            })
            .collect()
    });
    let mut facts = Vec::with_capacity(read.len());
    let mut fresh = Vec::new();
    for (dir, read) in discovery.dirs.iter().zip(read) {
        let read = match read {
            Ok(known) => {
                facts.push((dir.clone(), known.calls, known.has_backend));
                continue;
            }
            Err((lock, read)) => {
                if let Some(lock) = lock {
                    locks.insert(dir.clone(), lock);
                }
                read
            }
        };
        facts.push((dir.clone(), read.calls.clone(), read.has_backend));
        fresh.push((dir.clone(), read));
    }
    let unit_dirs: BTreeSet<PathBuf> = units.iter().map(|(u, _)| normalize_path(u)).collect();
    let unit_sources: BTreeSet<PathBuf> = units
        .iter()
        .filter_map(|(_, unit)| unit.as_ref().ok())
        .filter_map(|config| config.module_dir().map(normalize_path))
        .collect();
    let roots = parallel::run(|| tree::roots_by_calls(&facts))
        .into_iter()
        .filter(|dir| {
            let dir_n = normalize_path(dir);
            if unit_dirs.contains(&dir_n) || !templates.tf_stacks.may_be_root(&dir_n) {
                return false;
            }
            // A module a unit uses, or a unit a stack copies (a catalog's), is a template.
            let template = templates
                .terragrunt
                .contains(&tfsum_config::paths::absolute(&dir_n));
            if unit_sources.contains(&dir_n) || template {
                let has_backend = facts.iter().any(|(d, _, backend)| d == dir && *backend);
                return dir.join(LOCK_FILE_NAME).exists() || has_backend;
            }
            true
        })
        .collect();
    (roots, fresh)
}

/// What root detection reads of the module directory `dir` (`tofu`: it holds OpenTofu's
/// own files), and the lock file read on the way to tell its flavor.
fn read_module_facts(
    dir: &Path,
    tofu: bool,
    options: &LoadOptions,
    listings: &Listings,
    loader: &Loader<'_>,
) -> (Option<LockRead>, ModuleFacts) {
    let (flavor, lock) = match options.flavor {
        Some(flavor) => (flavor, None),
        None => {
            let lock = read_listed_lock(dir, &options.within, listings).ok();
            let flavor = match lock.as_ref().and_then(|(_, b)| b.as_deref()) {
                Some(bytes) => Flavor::from_header_bytes(bytes),
                // The walk saw the directory's files.
                None if tofu => Flavor::OpenTofu,
                None => Flavor::Terraform,
            };
            (flavor, lock.map(|(path, bytes)| (path, bytes, flavor)))
        }
    };
    let facts = match loader.load_root(dir, flavor.default_registry()) {
        Ok(module) => ModuleFacts {
            calls: tree::local_calls(dir, &module),
            has_backend: module.has_backend,
            loaded: true,
        },
        Err(_) => ModuleFacts {
            calls: tree::scanned_calls(dir),
            has_backend: false,
            loaded: false,
        },
    };
    (lock, facts)
}

/// What root detection reads of the module directory `dir` now, read on its own, and the
/// files and directories it read it from ([`module_inputs`]): the configuration index
/// checks that a changed file leaves the roots as they were ([`crate::index`]).
pub(crate) fn module_facts(
    dir: &Path,
    options: &LoadOptions,
    listings: &Listings,
) -> (ModuleFacts, Vec<PathBuf>) {
    let tofu = listings.listing(dir).is_ok_and(|listing| {
        listing.entries().any(|(name, kind)| {
            is_tofu_file_name(name)
                && match kind {
                    EntryType::File => true,
                    EntryType::Link => dir.join(name).is_file(),
                    _ => false,
                }
        })
    });
    let loader = Loader {
        modules: Mutex::default(),
        roots: Mutex::default(),
        edited: Arc::default(),
        listings,
        parsed: ParsedFiles::default(),
    };
    let facts = read_module_facts(dir, tofu, options, listings, &loader).1;
    let mut inputs = Vec::new();
    module_inputs(dir, listings, true, &mut inputs);
    (facts, inputs)
}

/// What root detection ([`read_module_facts`]) reads of the module directory `dir`, and
/// (`tests`) of its test directory, appended to `out`: the directory itself, its
/// configuration files of either dialect (the flavor decides which count, and a `.tofu`
/// file decides the flavor; a failed parse scans them too, [`tree::scanned_calls`]), its
/// lock file (whose header decides the flavor) and its test files (a module only a
/// test's `run` block calls is no root). The configuration index stamps exactly these to
/// know the facts still stand ([`crate::index`]), so a file root detection starts to read
/// belongs here.
pub(crate) fn module_inputs(dir: &Path, listings: &Listings, tests: bool, out: &mut Vec<PathBuf>) {
    let read = |name: &str| {
        tfsum_vocab::paths::is_config_file_name(name)
            || test_files::is_test_file_name(name)
            || name == LOCK_FILE_NAME
    };
    out.push(dir.to_path_buf());
    let Ok(listing) = listings.listing(dir) else {
        return;
    };
    out.extend(
        listing
            .entries()
            .filter(|(name, _)| read(name))
            .map(|(name, _)| dir.join(name)),
    );
    if tests && listing.get(test_files::DEFAULT_TEST_DIRECTORY) == Some(EntryType::Dir) {
        let tests_dir = dir.join(test_files::DEFAULT_TEST_DIRECTORY);
        out.push(tests_dir.clone());
        if let Ok(listing) = listings.listing(&tests_dir) {
            out.extend(
                listing
                    .entries()
                    .filter(|(name, _)| test_files::is_test_file_name(name))
                    .map(|(name, _)| tests_dir.join(name)),
            );
        }
    }
}

/// A root whose lock file was read, waiting for its module tree.
struct OpenRoot {
    dir: PathBuf,
    kind: RootKind,
    /// A unit's configuration: its source module with the unit's own and generated files
    /// laid over it; its lock file sits beside `terragrunt.hcl`.
    unit: Option<Box<UnitConfig>>,
    flavor: Flavor,
    old: Option<OldLock>,
    lock_path: PathBuf,
}

/// A lock file already read: where it is written, its bytes, and the flavor they tell.
type LockRead = (PathBuf, Option<Vec<u8>>, Flavor);

/// Lock files already read, by directory.
type LocksRead = HashMap<PathBuf, LockRead>;

/// Reads a root's lock file, unless `read` holds it already, with the flavor detected
/// from it (detecting again would list the directory again when there is none).
fn open_root(
    dir: &Path,
    unit: Option<UnitConfig>,
    options: &LoadOptions,
    read: Option<LockRead>,
    listings: &Listings,
    parsed: &ParsedLocks,
) -> Result<OpenRoot, RootError> {
    let (lock_path, old_bytes, detected) = match read {
        Some((path, bytes, flavor)) => (path, bytes, Some(flavor)),
        None => {
            let (path, bytes) = read_listed_lock(dir, &options.within, listings)?;
            (path, bytes, None)
        }
    };
    let flavor = options
        .flavor
        .or(detected)
        .unwrap_or_else(|| detect_flavor(dir, old_bytes.as_deref()));
    let old = old_bytes
        .map(|bytes| OldLock::read(dir, bytes, |b| parsed.read(b, flavor)))
        .transpose()?;
    Ok(OpenRoot {
        dir: dir.to_path_buf(),
        kind: if unit.is_some() {
            RootKind::Unit
        } else {
            RootKind::Module
        },
        unit: unit.map(Box::new),
        flavor,
        old,
        lock_path,
    })
}

/// The lock files parsed so far in a run, by content. Roots that use the same providers
/// mostly hold byte-identical lock files (tfsum and Terraform write them the same way),
/// so each distinct file is parsed once and the others are copies of it. A file that
/// does not parse is not kept: it is parsed again to name its own problem.
#[derive(Default)]
struct ParsedLocks(Mutex<HashMap<Box<[u8]>, ParsedLock>>);

/// A lock file's text parsed: under which flavor, the result, and whether the text is its
/// own rendering.
type ParsedLock = (Flavor, LockFile, bool);

impl ParsedLocks {
    /// [`lockfile::read_noting_form`] with `flavor`, answered from an earlier equal file.
    fn read(&self, bytes: &[u8], flavor: Flavor) -> Result<(LockFile, bool), lockfile::ReadError> {
        if let Some((seen, lock_file, rendered)) = lock(&self.0).get(bytes) {
            if *seen == flavor {
                return Ok((lock_file.clone(), *rendered));
            }
        }
        let (lock_file, rendered) = lockfile::read_noting_form(bytes, Some(flavor))?;
        lock(&self.0)
            .entry(bytes.into())
            .or_insert_with(|| (flavor, lock_file.clone(), rendered));
        Ok((lock_file, rendered))
    }
}

enum Walked {
    /// Loaded or failed, with the walk's warnings.
    Done(Root<Loaded>, Vec<Warning>),
    /// Some remote code is not fetched yet.
    Waiting(OpenRoot),
}

/// Walks a root's module tree with the remote code fetched so far.
fn walk(mut open: OpenRoot, loader: &Loader<'_>, remote: &Fetches, values: &ValueInputs) -> Walked {
    let host = open.flavor.default_registry();
    let mut reader = Reader {
        loader,
        remote,
        host,
        root: normalize_path(&open.dir),
    };
    if let Some(unit) = &open.unit {
        match fetch_unit_source(unit, &mut reader) {
            Ok(Some(fetched)) => open.unit = Some(Box::new(fetched)),
            Ok(None) => {}
            Err(e) => return Walked::Done(Root::failed(open.dir, open.kind, e), Vec::new()),
        }
    }
    let rules = match open.flavor {
        Flavor::OpenTofu => Rules::OpenTofu,
        Flavor::Terraform => Rules::Terraform,
    };
    // Terraform runs in the root module's directory; in a unit's, that of its source.
    let run_dir = open
        .unit
        .as_ref()
        .and_then(|unit| unit.module_dir())
        .unwrap_or(&open.dir)
        .to_path_buf();
    let mut inputs = RootInputs::new(rules, &run_dir, values).with_edited(loader.edited.as_ref());
    if let Some(unit) = &open.unit {
        let given = unit
            .inputs
            .iter()
            .map(|(name, input)| {
                let value = input.value.clone();
                (name.clone(), (value, input.at.clone()))
            })
            .collect();
        inputs = inputs.with_unit_inputs(given);
    }
    let tree = match &open.unit {
        Some(unit) => terragrunt::unit_requirements(unit, host, &inputs, &mut reader),
        None => tree::module_tree_requirements(&open.dir, host, &inputs, &mut reader),
    };
    let value_files = inputs.value_files();
    let tree = match tree {
        Ok(tree) if tree.pending > 0 => return Walked::Waiting(open),
        Ok(tree) => tree,
        Err(e) => {
            let root = Root::failed(open.dir, open.kind, RootError::Config(e));
            return Walked::Done(root, Vec::new());
        }
    };
    let warnings: Vec<Warning> = tree.warnings.iter().cloned().map(Warning::Module).collect();
    let self_contained = open.unit.is_none()
        && warnings.is_empty()
        && value_files.is_empty()
        && tree.evaluated_calls.is_empty()
        && tree.evaluated_local.is_empty()
        && !calls_remote_modules(&tree.modules, &mut reader);
    let mut modules = vec![open.dir.clone()];
    modules.extend(tree.modules.iter().cloned());
    let mut evaluated_calls = tree.evaluated_calls.clone();
    // A generated unit is defined by its stack files and its source as well.
    if let Some(unit) = &open.unit {
        modules.extend(unit.defined_by.iter().cloned());
        evaluated_calls.extend(unit_source_calls(unit));
    }
    let stage = config::collect(&tree.requirements)
        .map_err(RootError::Constraint)
        .map(|reqs| Loaded {
            flavor: open.flavor,
            old: open.old,
            reqs,
            modules,
            value_files,
            evaluated_local: tree.evaluated_local.clone(),
            evaluated_calls,
            create_below: open.unit.as_ref().and_then(|u| u.create_below.clone()),
            lock_path: open.lock_path,
            self_contained,
            stack: None,
        });
    let root = Root {
        dir: open.dir,
        kind: open.kind,
        stage,
    };
    Walked::Done(root, warnings)
}

/// Whether a module of the tree `modules` (as the walk read them, the root with its test
/// files) makes a call that is not a literal local path: a remote module, whose version
/// can move while no file of the repository changes, or an expression.
fn calls_remote_modules(modules: &[PathBuf], reader: &mut Reader<'_>) -> bool {
    modules.iter().any(|dir| match reader.load(dir) {
        Ok(module) => module.module_calls.iter().any(|call| {
            !call.literal
                || call.written.version.is_some()
                || !tfsum_vocab::module_source::is_local_source(&call.source)
        }),
        // An empty directory the walk named: no calls.
        Err(_) => false,
    })
}

/// The remote sources that decide what `unit` locks (a registry or git module), as
/// module calls whose version `outdated` looks up and `upgrade` moves where it is
/// written.
fn unit_source_calls(unit: &UnitConfig) -> Vec<tfsum_config::tree::EvaluatedCall> {
    use tfsum_vocab::module_source::{parse_terragrunt_source, ModuleSource};
    unit.sources
        .iter()
        .filter_map(|written| {
            let parsed = parse_terragrunt_source(&written.text).ok()?;
            let (source, version) = match &parsed.source {
                ModuleSource::Registry(module) => (module.to_string(), parsed.version),
                ModuleSource::Git(_) => (written.text.clone(), None),
                _ => return None,
            };
            Some(tfsum_config::tree::EvaluatedCall {
                dir: written
                    .at
                    .file
                    .parent()
                    .map_or_else(|| PathBuf::from("."), normalize_path),
                name: written.what.clone(),
                at: written.at.clone(),
                source,
                version,
                definition: written.version.clone(),
                unit: Some(unit.unit_dir.clone()),
            })
        })
        .collect()
}

/// The unit rebuilt around its remote source once fetched; `None` when it has none to
/// fetch (any more) or waits for the next round.
fn fetch_unit_source(
    unit: &UnitConfig,
    reader: &mut Reader<'_>,
) -> Result<Option<UnitConfig>, RootError> {
    let UnitSource::Remote { text, source } = &unit.source else {
        return Ok(None);
    };
    match reader.remote(&source.source, source.version.as_deref()) {
        Remote::Fetched(fetched) => Ok(Some(unit.fetched(fetched.dir)?)),
        Remote::Pending => Ok(None),
        Remote::Failed(error) => Err(RootError::UnitSource {
            unit: unit.unit_dir.join(terragrunt::UNIT_FILE_NAME),
            module_source: text.clone(),
            error: Box::new(error),
        }),
    }
}

/// The walk's reader: modules parsed once per default registry host, remote calls
/// answered from the fetches so far.
struct Reader<'a> {
    loader: &'a Loader<'a>,
    remote: &'a Fetches,
    host: &'static str,
    /// The root module's directory (normalised): it is read with its test files.
    root: PathBuf,
}

impl ModuleReader for Reader<'_> {
    fn load(&mut self, dir: &Path) -> Result<Arc<Module>, ConfigError> {
        if *dir == self.root {
            self.loader.load_root(dir, self.host)
        } else {
            self.loader.load(dir, self.host)
        }
    }

    fn remote(&mut self, source: &RemoteSource, version: Option<&str>) -> Remote {
        self.remote.get(source, version)
    }

    fn lacks(&self, dir: &Path, name: &str) -> bool {
        self.loader
            .listings
            .walked(dir)
            .is_some_and(|listing| listing.get(name).is_none())
    }
}

/// Remote module code by (source, version): fetched, failed, or wanted next round.
/// Walks ask from every thread; fetching happens between rounds.
#[derive(Default)]
struct Fetches {
    done: HashMap<(RemoteSource, Option<String>), Result<FetchedModule, ModuleError>>,
    wanted: Mutex<HashSet<(RemoteSource, Option<String>)>>,
}

impl Fetches {
    fn get(&self, source: &RemoteSource, version: Option<&str>) -> Remote {
        let key = (source.clone(), version.map(str::to_string));
        match self.done.get(&key) {
            Some(Ok(fetched)) => Remote::Fetched(fetched.clone()),
            Some(Err(error)) => Remote::Failed(error.clone()),
            None => {
                lock(&self.wanted).insert(key);
                Remote::Pending
            }
        }
    }

    /// Fetches every wanted source at once (the fetcher bounds the concurrency and
    /// fetches each package once).
    async fn fetch_wanted(&mut self, fetcher: &ModuleFetcher) {
        let wanted: Vec<_> = lock(&self.wanted).drain().collect();
        let fetched = futures::future::join_all(wanted.into_iter().map(|key| async move {
            let result = fetcher.fetch(&key.0, key.1.as_deref()).await;
            (key, result)
        }))
        .await;
        self.done.extend(fetched);
    }
}

/// Where the root's lock file is written and what it holds now. A lock file that is a
/// link is followed only into the trees tfsum works on, and then read from its target.
fn read_old_lock(dir: &Path, within: &[PathBuf]) -> Result<(PathBuf, Option<Vec<u8>>), RootError> {
    let path = dir.join(LOCK_FILE_NAME);
    let target = link_target(&path, within)?;
    let problem = |problem| RootError::LockFile {
        path: path.clone(),
        problem,
    };
    let bytes = match tfsum_disk::read::read(&target) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((target, None)),
        Err(e) => return Err(problem(LockProblem::Read(e))),
    };
    Ok((target, Some(bytes)))
}

/// [`read_old_lock`] answered from the directory's listing where the walk took one: no
/// lock file there means none to read, and one that was a plain file is read without
/// asking again whether it is a link (it is opened without following one, so a link put
/// in its place since is taken through [`read_old_lock`]'s checks).
fn read_listed_lock(
    dir: &Path,
    within: &[PathBuf],
    listings: &Listings,
) -> Result<(PathBuf, Option<Vec<u8>>), RootError> {
    let path = dir.join(LOCK_FILE_NAME);
    match listings.walked(dir).map(|l| l.get(LOCK_FILE_NAME)) {
        Some(None) => Ok((path, None)),
        Some(Some(EntryType::File)) => match tfsum_disk::read::read_no_follow(&path) {
            Ok(bytes) => Ok((path, Some(bytes))),
            Err(_) => read_old_lock(dir, within),
        },
        _ => read_old_lock(dir, within),
    }
}

/// The flavor of a root without `--flavor`: the existing lock file's header decides,
/// else the presence of `.tofu` files (spec §10).
pub fn detect_flavor(dir: &Path, old: Option<&[u8]>) -> Flavor {
    if let Some(bytes) = old {
        return Flavor::from_header_bytes(bytes);
    }
    let has_tofu = config::files::config_file_names(dir)
        .is_ok_and(|names| names.iter().any(|n| is_tofu_file_name(n)));
    if has_tofu {
        Flavor::OpenTofu
    } else {
        Flavor::Terraform
    }
}

/// Parses each module directory once per default registry host, and reads a root's
/// test files once (root detection and the tree walk both ask); shared by the threads
/// that walk roots. Successes are kept; a failure is not, so asking again yields the
/// error again (failures are rare and the error type is not `Clone`). Two threads asking
/// for the same new module at once may both parse it; the first kept is the one used.
struct Loader<'a> {
    modules: Mutex<HashMap<(PathBuf, &'static str), Arc<Module>>>,
    roots: Mutex<HashMap<(PathBuf, &'static str), Arc<Module>>>,
    /// Files read with the text an upgrade gives them (none for `lock`).
    edited: Arc<Edited>,
    /// Discovery's directory listings: a directory it listed is not listed again.
    listings: &'a Listings,
    /// Each distinct configuration text is parsed once.
    parsed: ParsedFiles,
}

impl Loader<'_> {
    fn load(&self, dir: &Path, host: &'static str) -> Result<Arc<Module>, ConfigError> {
        let key = (dir.to_path_buf(), host);
        if let Some(module) = lock(&self.modules).get(&key) {
            return Ok(module.clone());
        }
        let module = Arc::new(
            self.edited
                .load_module(dir, host, self.listings, &self.parsed)?,
        );
        Ok(lock(&self.modules).entry(key).or_insert(module).clone())
    }

    /// The module in `dir` as a root: with its test files ([`test_files::root_with_tests`]).
    fn load_root(&self, dir: &Path, host: &'static str) -> Result<Arc<Module>, ConfigError> {
        let key = (dir.to_path_buf(), host);
        if let Some(module) = lock(&self.roots).get(&key) {
            return Ok(module.clone());
        }
        let module = test_files::root_with_tests(self.load(dir, host)?, host, self.listings)?;
        Ok(lock(&self.roots).entry(key).or_insert(module).clone())
    }
}

/// The map behind `mutex`, also after a thread panicked holding it (the maps are only
/// ever inserted into, so what it holds is whole).
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tfsum_config::DATA_DIR;
    use tfsum_disk::walk::DiscoverWarning;
    use tfsum_sources::modules::FetcherOptions;
    use tfsum_vocab::addr::{OPENTOFU_REGISTRY, TERRAFORM_REGISTRY};

    fn write(base: &Path, rel: &str, text: &str) {
        let path = base.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn requires(name: &str, constraint: &str) -> String {
        format!(
            "terraform {{\n  required_providers {{\n    {name} = {{\n      source  = \"hashicorp/{name}\"\n      version = \"{constraint}\"\n    }}\n  }}\n}}\n"
        )
    }

    fn load_options(base: &Path) -> LoadOptions {
        LoadOptions {
            flavor: None,
            recursive: true,
            within: vec![std::fs::canonicalize(base).unwrap()],
            values: Arc::default(),
        }
    }

    /// The roots of `discovery`, found below `base`, recursively, with no remote module
    /// fetched.
    async fn load_tree(base: &Path, discovery: &Discovery) -> (Vec<Root<Loaded>>, Vec<Warning>) {
        let options = load_options(base);
        let fetcher = ModuleFetcher::new(None, FetcherOptions::default());
        roots(discovery, &options, &fetcher).await
    }

    /// From a discovery to roots in path order: a module another one calls is not a
    /// root, a root's requirements span its module tree, a `.tofu` file makes a root
    /// OpenTofu's, a broken lock file stops its root with a typed error, and the
    /// warnings of discovery and of the tree walks come back typed, with their location.
    #[tokio::test]
    async fn roots_from_a_discovery() {
        let tmp = tempfile::tempdir().unwrap();
        let base = tmp.path();
        write(
            base,
            "a/main.tf",
            &format!(
                "{}module \"shared\" {{\n  source = \"../shared\"\n}}\nmodule \"empty\" {{\n  source = \"../empty\"\n}}\n",
                requires("null", "~> 3.1")
            ),
        );
        write(base, "shared/main.tf", &requires("random", ">= 3.0"));
        write(base, "empty/README.md", "nothing here\n");
        write(base, "b/main.tf", &requires("null", "~> 3.1"));
        write(base, "b/.terraform.lock.hcl", "provider \"x\" {\n");
        write(base, "c/main.tofu", &requires("null", "~> 3.1"));
        let mut discovery = crate::discover::discover(&[base.to_path_buf()], true, &[]).unwrap();
        let unreadable = DiscoverWarning {
            path: base.join("locked"),
            message: "skipped, cannot read: permission denied".to_string(),
        };
        discovery.warnings.push(unreadable.clone());
        let (roots, warnings) = load_tree(base, &discovery).await;

        let dirs: Vec<PathBuf> = roots.iter().map(|r| r.dir.clone()).collect();
        assert_eq!(dirs, [base.join("a"), base.join("b"), base.join("c")]);
        let a = roots[0].stage.as_ref().expect("a loads");
        assert_eq!(a.flavor, Flavor::Terraform);
        let providers: Vec<String> = a.reqs.keys().map(ToString::to_string).collect();
        assert_eq!(
            providers,
            [
                format!("{TERRAFORM_REGISTRY}/hashicorp/null"),
                format!("{TERRAFORM_REGISTRY}/hashicorp/random"),
            ]
        );
        assert!(a.modules.contains(&base.join("shared")), "{:?}", a.modules);
        assert_eq!(a.lock_path, base.join("a").join(LOCK_FILE_NAME));
        assert!(a.old.is_none());
        assert!(
            matches!(
                &roots[1].stage,
                Err(RootError::LockFile {
                    problem: LockProblem::Unreadable(_),
                    ..
                })
            ),
            "{:?}",
            roots[1].stage
        );
        let c = roots[2].stage.as_ref().expect("c loads");
        assert_eq!(c.flavor, Flavor::OpenTofu);
        let providers: Vec<String> = c.reqs.keys().map(ToString::to_string).collect();
        assert_eq!(providers, [format!("{OPENTOFU_REGISTRY}/hashicorp/null")]);

        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert_eq!(warnings[0], Warning::Discover(unreadable));
        assert_eq!(warnings[1].kind(), "module");
        assert_eq!(warnings[1].path(), Some(base.join("a/main.tf").as_path()));
        assert_eq!(warnings[1].line(), Some(12), "the module block's line");
        assert!(
            warnings[1].to_string().contains("module \"empty\""),
            "{}",
            warnings[1]
        );
    }

    /// Two roots on disk, one calling a local module, the other with a lock file: the
    /// module is no root but its requirements are its caller's, and the lock file comes
    /// back parsed with the root that has it.
    #[tokio::test]
    async fn two_roots_a_local_module_and_a_lock_file() {
        let tmp = tempfile::tempdir().unwrap();
        let base = tmp.path();
        let call = "module \"net\" {\n  source = \"../modules/net\"\n}\n";
        write(
            base,
            "app/main.tf",
            &format!("{}{call}", requires("null", "~> 3.1")),
        );
        write(base, "modules/net/main.tf", &requires("random", ">= 3.0"));
        write(base, "db/main.tf", &requires("null", "~> 3.1"));
        let lock = "provider \"registry.terraform.io/hashicorp/null\" {\n  version     = \"3.2.1\"\n  constraints = \"~> 3.1\"\n  hashes = [\n    \"zh:0000000000000000000000000000000000000000000000000000000000000000\",\n  ]\n}\n";
        write(base, "db/.terraform.lock.hcl", lock);
        let discovery = crate::discover::discover(&[base.to_path_buf()], true, &[]).unwrap();
        let (roots, warnings) = load_tree(base, &discovery).await;
        assert!(warnings.is_empty(), "{warnings:?}");

        let dirs: Vec<PathBuf> = roots.iter().map(|r| r.dir.clone()).collect();
        assert_eq!(dirs, [base.join("app"), base.join("db")]);
        let app = roots[0].stage.as_ref().expect("app loads");
        let providers: Vec<String> = app.reqs.keys().map(ToString::to_string).collect();
        assert_eq!(
            providers,
            [
                format!("{TERRAFORM_REGISTRY}/hashicorp/null"),
                format!("{TERRAFORM_REGISTRY}/hashicorp/random"),
            ]
        );
        assert!(
            app.modules.contains(&base.join("modules/net")),
            "{:?}",
            app.modules
        );
        assert!(app.old.is_none());

        let db = roots[1].stage.as_ref().expect("db loads");
        assert_eq!(db.lock_path, base.join("db").join(LOCK_FILE_NAME));
        let old = db.old.as_ref().expect("db's lock file is read");
        assert_eq!(old.bytes, lock.as_bytes());
        let locked: Vec<(String, String)> = old
            .lock
            .providers
            .iter()
            .map(|(addr, entry)| (addr.to_string(), entry.version.to_string()))
            .collect();
        assert_eq!(
            locked,
            [(
                format!("{TERRAFORM_REGISTRY}/hashicorp/null"),
                "3.2.1".to_string()
            )]
        );
    }

    /// A root whose listing shows a `.terraform` directory has its `modules.json` read
    /// (a remote call installed there is walked without fetching); the walk's listing
    /// answers for a root without one, and its remote call waits for a fetch.
    #[test]
    fn the_listing_tells_which_roots_have_installed_modules() {
        let tmp = tempfile::tempdir().unwrap();
        let base = tmp.path();
        let call = "module \"net\" {\n  source  = \"acme/net/aws\"\n  version = \"1.0.0\"\n}\n";
        write(base, "installed/main.tf", call);
        write(
            base,
            "installed/.terraform/modules/modules.json",
            r#"{"Modules":[{"Key":"","Source":"","Dir":"."},{"Key":"net","Source":"registry.terraform.io/acme/net/aws","Version":"1.0.0","Dir":".terraform/modules/net"}]}"#,
        );
        write(
            base,
            "installed/.terraform/modules/net/main.tf",
            &requires("random", ">= 3.0"),
        );
        write(base, "fresh/main.tf", call);
        let discovery = crate::discover::discover(&[base.to_path_buf()], true, &[]).unwrap();
        let loader = Loader {
            modules: Mutex::default(),
            roots: Mutex::default(),
            edited: Arc::default(),
            listings: &discovery.listings,
            parsed: ParsedFiles::default(),
        };
        let remote = Fetches::default();
        let mut reader = Reader {
            loader: &loader,
            remote: &remote,
            host: TERRAFORM_REGISTRY,
            root: normalize_path(&base.join("installed")),
        };
        assert!(!reader.lacks(&base.join("installed"), DATA_DIR));
        let values = ValueInputs::default();
        let installed = base.join("installed");
        let inputs = RootInputs::new(Rules::Terraform, &installed, &values);
        let tree =
            tree::module_tree_requirements(&installed, TERRAFORM_REGISTRY, &inputs, &mut reader)
                .unwrap();
        assert_eq!(tree.pending, 0);
        assert_eq!(tree.requirements.len(), 1, "{:?}", tree.requirements);

        reader.root = normalize_path(&base.join("fresh"));
        assert!(reader.lacks(&base.join("fresh"), DATA_DIR));
        let fresh = base.join("fresh");
        let inputs = RootInputs::new(Rules::Terraform, &fresh, &values);
        let tree = tree::module_tree_requirements(&fresh, TERRAFORM_REGISTRY, &inputs, &mut reader)
            .unwrap();
        assert_eq!(tree.pending, 1);
    }

    /// What root detection reads of a module directory, which the configuration index
    /// stamps: the directory, its configuration files of both dialects, its test files
    /// and its lock file, and with `tests` its test directory and the test files there;
    /// no var file, hidden or backup file, other file or subdirectory.
    #[test]
    fn module_inputs_are_what_root_detection_reads() {
        let tmp = tempfile::tempdir().unwrap();
        let base = tmp.path();
        for name in [
            "main.tf",
            "b.tofu",
            "c.tf.json",
            "d.tofu.json",
            "e.tftest.hcl",
            "f.tofutest.json",
            ".terraform.lock.hcl",
            ".hidden.tf",
            "main.tf~",
            "terraform.tfvars",
            "README.md",
            "tests/g.tftest.hcl",
            "tests/notes.md",
            "sub/main.tf",
        ] {
            let text = if name.ends_with(".json") { "{}" } else { "" };
            write(base, &format!("m/{name}"), text);
        }
        let discovery = crate::discover::discover(&[base.to_path_buf()], true, &[]).unwrap();
        let dir = base.join("m");
        let own = [
            "",
            ".terraform.lock.hcl",
            "b.tofu",
            "c.tf.json",
            "d.tofu.json",
            "e.tftest.hcl",
            "f.tofutest.json",
            "main.tf",
        ];
        for (tests, extra) in [
            (false, &[][..]),
            (true, &["tests", "tests/g.tftest.hcl"][..]),
        ] {
            let mut got = Vec::new();
            module_inputs(&dir, &discovery.listings, tests, &mut got);
            got.sort();
            let mut want: Vec<PathBuf> = own.iter().chain(extra).map(|n| dir.join(n)).collect();
            want.sort();
            assert_eq!(got, want, "tests: {tests}");
        }
        let (facts, inputs) = module_facts(&dir, &load_options(base), &discovery.listings);
        assert!(facts.loaded);
        assert!(
            inputs.contains(&dir.join("tests/g.tftest.hcl")),
            "{inputs:?}"
        );
    }

    /// A lock file equal to one parsed before is that file's result, under the same
    /// flavor only; one that does not parse fails every time.
    #[test]
    fn each_distinct_lock_file_is_parsed_once() {
        let text = "# This file is maintained automatically by \"terraform init\".\n\
                    # Manual edits may be lost in future updates.\n\n\
                    provider \"registry.terraform.io/hashicorp/null\" {\n  version = \"3.2.1\"\n  hashes = [\n    \"h1:abc\",\n  ]\n}\n";
        let parsed = ParsedLocks::default();
        for flavor in [Flavor::Terraform, Flavor::OpenTofu, Flavor::Terraform] {
            let direct = lockfile::read_noting_form(text.as_bytes(), Some(flavor)).unwrap();
            assert_eq!(parsed.read(text.as_bytes(), flavor).unwrap(), direct);
            assert!(direct.1, "canonical form");
        }
        assert_eq!(lock(&parsed.0).len(), 1);
        for _ in 0..2 {
            assert!(parsed
                .read(b"provider \"x\" {\n", Flavor::Terraform)
                .is_err());
        }
        assert_eq!(lock(&parsed.0).len(), 1);
    }

    /// Root detection takes a directory's flavor from the discovery walk instead of
    /// listing it again: the walk must see `.tofu` files exactly as [`detect_flavor`]
    /// does (ignored names, a directory so named and a dangling link do not count).
    #[test]
    fn the_walk_sees_tofu_files_as_detect_flavor_does() {
        let tmp = tempfile::tempdir().unwrap();
        let base = tmp.path();
        write(base, "tf/main.tf", "");
        write(base, "tofu/main.tofu", "");
        write(base, "json/x.tofu.json", "{}");
        write(base, "json/y.tf", "");
        write(base, "hidden/.main.tofu", "");
        write(base, "hidden/main.tf", "");
        write(base, "backup/main.tofu~", "");
        write(base, "backup/main.tf", "");
        write(base, "dir/main.tf", "");
        std::fs::create_dir_all(base.join("dir/sub.tofu")).unwrap();
        write(base, "link/main.tf", "");
        std::os::unix::fs::symlink(base.join("tofu/main.tofu"), base.join("link/a.tofu")).unwrap();
        write(base, "dangling/main.tf", "");
        std::os::unix::fs::symlink(base.join("nowhere.tofu"), base.join("dangling/b.tofu"))
            .unwrap();

        let discovery = crate::discover::discover(&[base.to_path_buf()], true, &[]).unwrap();
        let tofu: Vec<&Path> = discovery
            .tofu_dirs
            .iter()
            .map(|d| d.strip_prefix(base).unwrap())
            .collect();
        assert_eq!(
            tofu,
            [Path::new("json"), Path::new("link"), Path::new("tofu")]
        );
        assert_eq!(discovery.dirs.len(), 8, "{:?}", discovery.dirs);
        for dir in &discovery.dirs {
            let walked = if discovery.tofu_dirs.contains(dir) {
                Flavor::OpenTofu
            } else {
                Flavor::Terraform
            };
            assert_eq!(detect_flavor(dir, None), walked, "{}", dir.display());
        }
    }
}
