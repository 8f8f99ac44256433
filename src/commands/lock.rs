//! The `lock` command: the pipeline, stage by stage ([`super::run`], the driver it
//! shares with `upgrade`), over every root module and Terragrunt unit of the given
//! paths; then, with `--mirror`, the install stage, and the run record.
//!
//! ```text
//! discover ──▶ load ──▶ resolve ──▶ hash ──▶ write
//! Discovery    Root<Loaded>  Plan     Hashes   RootReport
//! ```
//!
//! A failure in one root (bad configuration, a broken lock file, no matching version, a
//! package that does not verify) stops that root only ([`tfsum_stages::root`]); every other root
//! is still written. Work shared between roots is done once: each module directory is
//! parsed once, each provider's version list fetched once, each unique package hashed
//! once.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Instant, SystemTime};

use super::run::{Finish, Pipeline};
use crate::commands::settings::{LockSettings, Services, SetupError};
use tfsum_config::early::ValueInputs;
use tfsum_config::test_files::{is_test_file_name, DEFAULT_TEST_DIRECTORY};
use tfsum_disk::provider_dir::{Layout, ProviderDir};
use tfsum_report::run_record;
use tfsum_report::RunReport;
use tfsum_sources::kept::KeptPackages;
use tfsum_stages::discover;
use tfsum_stages::index::{IndexSettings, IndexedRun, Searched};
use tfsum_stages::load::{LoadOptions, Loaded};
use tfsum_stages::root::{Root, RootError};
use tfsum_stages::warning::Warning;
use tfsum_stages::write::LOCK_FILE_NAME;
use tfsum_vocab::lockfile::Flavor;
use tfsum_vocab::paths::normalize_path;
use tfsum_vocab::progress::Progress;

/// An error that stops the run before any root is attempted.
#[derive(Debug, thiserror::Error)]
pub(crate) enum FatalError {
    #[error(transparent)]
    Discover(#[from] discover::DiscoverError),
    #[error("{0}: no such file or directory")]
    NotFound(PathBuf),
    #[error(transparent)]
    Setup(#[from] SetupError),
    #[error("--retry-failed: {0}")]
    Retry(RetryError),
    #[error("the provider directory: {0}")]
    Mirror(tfsum_disk::provider_dir::DirError),
    #[error("--layout oci pushes to a registry: it cannot run with --offline")]
    OciOffline,
}

/// Why `--retry-failed` has no run to retry.
#[derive(Debug, thiserror::Error)]
pub(crate) enum RetryError {
    #[error("it needs a cache directory to read the last run from; set --cache-dir")]
    NoCache,
    #[error("no earlier `tfsum lock` run from {} is recorded (looked in {})", cwd.display(), file.display())]
    NoRecord { cwd: PathBuf, file: PathBuf },
    #[error(transparent)]
    Unreadable(run_record::RecordError),
}

impl FatalError {
    /// Usage errors (a path that does not exist, a bad mirror) exit 2; a broken CLI
    /// configuration is a failure of the run (1).
    pub(crate) fn is_usage(&self) -> bool {
        !matches!(
            self,
            FatalError::Setup(SetupError::CliConfig(_) | SetupError::OciConfig(_))
                | FatalError::Mirror(_)
        )
    }
}

/// Runs `tfsum lock`.
pub(crate) async fn run(
    settings: &LockSettings,
    progress: Arc<dyn Progress>,
) -> Result<RunReport, FatalError> {
    let started = Instant::now();
    // Before anything of the tree is read: a file whose times are not older than this
    // (less the index's margin) cannot be vouched for by its stamp (`disk::index`).
    let began = SystemTime::now();
    // With `--mirror`, the directory is opened first: the hash stage keeps what it
    // downloads there, for the install stage to unpack.
    let mirror_dir = match &settings.mirror {
        Some(dir) if !settings.check => {
            let limits = settings.sources.zip_limits.clone();
            let opened =
                ProviderDir::open(dir, Layout::Unpacked, limits).map_err(FatalError::Mirror)?;
            Some(Arc::new(opened))
        }
        _ => None,
    };
    let kept = mirror_dir
        .clone()
        .map(|dir| Arc::new(KeptPackages::new(dir)));
    let services = settings
        .sources
        .services_keeping(progress.clone(), kept.clone())?;
    let targets = Targets::new(&settings.paths, settings.recursive)?;
    let options = targets.load_options(settings.sources.flavor, &settings.values);
    let searched = Searched {
        search: &targets.search,
        recursive: targets.recursive,
        changed: targets.changed.as_deref(),
    };
    let (mut index, refused) = match index_settings(settings, &services) {
        Some(kept) => IndexedRun::open(kept, &searched, &options, &services.cache, began),
        None => (None, None),
    };
    let discovery = match &mut index {
        Some(index) => index.discover(&searched, &options)?,
        None => discover::discover(&targets.search, targets.recursive, &settings.ignore)?,
    };
    // Roots the index gave are opened as given roots: root detection already ran.
    let options = match &index {
        Some(index) if index.roots_given() => LoadOptions {
            recursive: false,
            ..options
        },
        _ => options,
    };
    let pipeline = Pipeline {
        upgrade: settings.upgrade,
        platforms_defaulted: settings.platforms_defaulted,
        ..Pipeline::new(&services, options, &settings.platforms, progress.as_ref())
    };
    let check = settings.check;
    let keep = |root: &Root<Loaded>| targets.affects(root);
    let finish = Finish::Write { check };
    let mut driven = pipeline
        .run_indexed(discovery, keep, finish, index.as_mut())
        .await;
    if let Some(index) = index {
        index.save();
    }
    driven.warnings.extend(refused);
    let mirror = match mirror_dir {
        Some(dir) => Some(pipeline.mirror_written(&driven.roots, dir, kept).await),
        None => None,
    };
    let fail_on_write = settings.fail_on_write;
    let mut report = driven.report(&services, check, fail_on_write, started, mirror);
    save_record(settings, &services, &mut report);
    Ok(report)
}

/// What the configuration index is kept under, unless the settings keep none
/// (`--no-index`, `TFSUM_INDEX=false`, `index = false`).
fn index_settings(settings: &LockSettings, services: &Services) -> Option<IndexSettings> {
    settings.index.then(|| IndexSettings {
        cwd: settings.cwd.clone(),
        ignore: settings.ignore.clone(),
        upgrade: settings.upgrade,
        platforms: settings.platforms.clone(),
        flavor: settings.sources.flavor,
        packages: format!("{:?}", settings.sources.packages),
        installation: services.installation.clone(),
    })
}

/// Records which roots failed, for `--retry-failed`; a record that cannot be saved is a
/// warning of the run.
fn save_record(settings: &LockSettings, services: &Services, report: &mut RunReport) {
    if services.cache.root().is_none() {
        return;
    }
    let record = run_record::RunState::from_report(&settings.cwd, report);
    if let Err(e) = run_record::save(&services.cache, &record) {
        report.warnings.push(Warning::RunRecord {
            file: run_record::path(&services.cache, &settings.cwd),
            error: e.to_string(),
        });
    }
}

/// The roots that failed in the last run from `settings.cwd`, for `--retry-failed`,
/// with a note per root that no longer exists. Empty when nothing failed.
pub(crate) fn roots_to_retry(
    settings: &LockSettings,
) -> Result<(Vec<PathBuf>, Vec<String>), FatalError> {
    let cache = settings.sources.cache().map_err(SetupError::from)?;
    if cache.root().is_none() {
        return Err(FatalError::Retry(RetryError::NoCache));
    }
    let file = run_record::path(&cache, &settings.cwd);
    let record = match run_record::load(&cache, &settings.cwd) {
        Ok(Some(record)) => record,
        Ok(None) => {
            return Err(FatalError::Retry(RetryError::NoRecord {
                cwd: settings.cwd.clone(),
                file,
            }))
        }
        Err(e) => return Err(FatalError::Retry(RetryError::Unreadable(e))),
    };
    let mut paths = Vec::new();
    let mut notes = Vec::new();
    for dir in record.failed() {
        if settings.cwd.join(&dir).exists() {
            paths.push(dir);
        } else {
            notes.push(format!(
                "{} failed last time but no longer exists; skipped",
                dir.display()
            ));
        }
    }
    Ok((paths, notes))
}

/// What to search, and (in changed-files mode, what pre-commit passes) which roots to
/// keep: those whose configuration holds one of the files.
pub(crate) struct Targets {
    pub search: Vec<PathBuf>,
    pub recursive: bool,
    pub changed: Option<Vec<PathBuf>>,
}

impl Targets {
    /// How the load stage reads the roots these targets reach: module calls followed
    /// within the trees searched (through links too), which are also all that a
    /// configuration's `file()` may read; variables valued from `values`.
    pub(crate) fn load_options(&self, flavor: Option<Flavor>, values: &ValueInputs) -> LoadOptions {
        let within = tfsum_disk::atomic::link_trees(&self.search);
        let mut values = values.clone();
        values.readable = within.clone();
        LoadOptions {
            flavor,
            recursive: self.recursive,
            within,
            values: Arc::new(values),
        }
    }

    /// A path naming a *file* switches to changed-files mode: the current directory is
    /// searched, and a directory among the paths stands for its lock file.
    pub(crate) fn new(paths: &[PathBuf], recursive: bool) -> Result<Targets, FatalError> {
        let mut any_file = false;
        for path in paths {
            match std::fs::metadata(path) {
                Ok(meta) => any_file |= meta.is_file(),
                // A deleted file is a change too (pre-commit passes it when a file is
                // removed).
                Err(_) if path.extension().is_some() => any_file = true,
                Err(_) => return Err(FatalError::NotFound(path.clone())),
            }
        }
        if !any_file {
            return Ok(Targets {
                search: paths.to_vec(),
                recursive,
                changed: None,
            });
        }
        let changed = paths
            .iter()
            .map(|p| {
                let p = normalize_path(p);
                if p.is_dir() {
                    p.join(LOCK_FILE_NAME)
                } else {
                    p
                }
            })
            .collect();
        Ok(Targets {
            search: vec![PathBuf::from(".")],
            recursive: true,
            changed: Some(changed),
        })
    }

    /// Whether `root` is to be locked: always, but in changed-files mode only when a
    /// changed file belongs to it: a file in one of the root's module directories (its
    /// own `.tfvars` files among them), a var file its module sources read, its lock
    /// file, its Terragrunt unit, or a test file in its test directory. A test file
    /// selects its root by name even when the root ignores test files or the file was
    /// deleted: locking again is then a no-op or drops what only that file needed.
    pub(crate) fn affects(&self, root: &Root<Loaded>) -> bool {
        let Some(files) = &self.changed else {
            return true;
        };
        let root_dir = normalize_path(&root.dir);
        let test_dir = normalize_path(&root_dir.join(DEFAULT_TEST_DIRECTORY));
        let (modules, value_files) = match &root.stage {
            Ok(loaded) => (loaded.modules.as_slice(), loaded.value_files.as_slice()),
            Err(RootError::Stack { modules, .. }) => (modules.as_slice(), &[][..]),
            Err(_) => (&[][..], &[][..]),
        };
        files.iter().any(|file| {
            let dir = normalize_path(file.parent().unwrap_or(Path::new(".")));
            let is_test = file
                .file_name()
                .and_then(|name| name.to_str())
                .is_some_and(is_test_file_name);
            dir == root_dir
                || modules.iter().any(|m| normalize_path(m) == dir)
                || value_files.iter().any(|f| {
                    tfsum_config::paths::absolute(f) == tfsum_config::paths::absolute(file)
                })
                || (is_test && dir == test_dir)
        })
    }

    /// Drops the roots this run is not to lock ([`Targets::affects`]).
    pub(crate) fn keep_affected(&self, roots: &mut Vec<Root<Loaded>>) {
        roots.retain(|root| self.affects(root));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tfsum_sources::modules::{FetcherOptions, ModuleFetcher};
    use tfsum_stages::discover::Discovery;
    use tfsum_stages::load;

    /// Discovery's result is all `load` needs; an empty one loads nothing.
    #[tokio::test]
    async fn empty_discovery_loads_nothing() {
        let fetcher = ModuleFetcher::new(None, FetcherOptions::default());
        let options = LoadOptions {
            flavor: None,
            recursive: true,
            within: Vec::new(),
            values: Arc::default(),
        };
        let (roots, warnings) = load::roots(&Discovery::default(), &options, &fetcher).await;
        assert!(roots.is_empty() && warnings.is_empty());
    }
}
