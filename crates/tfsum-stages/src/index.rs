//! The configuration index in a `tfsum lock` run: what it lets the run skip, and what the
//! run teaches it (docs/design.md, "Performance model"; the index itself, its stamps and
//! its storage are [`tfsum_disk::index`]). Like cargo's fingerprints, the policy sits with
//! the stages it lets skip work; the commands only build its [`IndexSettings`].
//!
//! ```text
//! look ──▶ discover ──▶ decide ──▶ load (the roots to open) ──▶ … ──▶ write ──▶ save
//!  stamps   known        per        learn: module facts,              learn: which roots
//!           listings     root       root facts                        were up to date
//! ```
//!
//! 1. **Look.** A whole run (`lock -r PATH`) stamps every file and directory the last
//!    run's facts depend on. A changed-files run (pre-commit, Renovate) stamps every
//!    directory, the files it was given, and the files of each directory that changed
//!    (an editor that saves by renaming, `git checkout`, `git stash` and pre-commit's own
//!    stash all replace files, which moves their directory): it believes the index about
//!    a file edited in place in a directory that did not move and that it was not given,
//!    until a whole run or a run given that file.
//! 2. **Discover.** The walk takes the listing of each unchanged directory from the
//!    index and lists the others ([`tfsum_disk::walk::walk_knowing`]).
//! 3. **Decide.** Root detection takes the facts of each module directory whose inputs
//!    stand ([`Prior::module`]; what it reads of a directory is
//!    [`load::module_inputs`], which the index stamps). Each root the last run recorded
//!    is then *opened* (loaded, resolved, hashed, written as without an index), *up to
//!    date* (reported unchanged without being read: its lock file was found up to date
//!    by a run with the same settings, every input of it is unchanged, and its result
//!    depends on those inputs alone, see [`Loaded::self_contained`]), or, in
//!    changed-files mode, *unconcerned*:
//!    the index's reverse graph says its tree reaches none of the files given, and none
//!    of its inputs was seen to change. A root the index does not know, one whose facts
//!    are stale, a root that failed, one whose tree calls local modules through
//!    expressions, and every Terragrunt unit and stack are opened, and in changed-files
//!    mode then kept only if the files given concern them (as without an index).
//! 4. **Learn and save.** What the load stage read replaces what was stale; after the
//!    write stage, each opened self-contained root whose lock file was left unchanged
//!    is marked up to date under this run's settings. The index is stored only when it
//!    learnt something.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use rayon::prelude::*;
use regex::Regex;

use crate::discover::{self, DiscoverError, Discovery};
use crate::load::{self, module_inputs, LoadOptions, Loaded, Loading, ModuleFacts, Prior};
use crate::parallel;
use crate::root::RootKind;
use crate::warning::Warning;
use crate::write::{Change, RootOutcome, RootReport};
use tfsum_config::test_files::{is_test_file_name, DEFAULT_TEST_DIRECTORY};
use tfsum_disk::cache::Cache;
use tfsum_disk::index::{self, Index, LearntRoot, RootRecord, Unusable};
use tfsum_disk::walk::{Listing, Listings};
use tfsum_vocab::addr::Platform;
use tfsum_vocab::lockfile::{Flavor, LOCK_FILE_NAME};
use tfsum_vocab::paths::normalize_path;

/// What the index of a `tfsum lock` run is kept under: plain values the commands take
/// from their settings. Each part that decides what a run may skip is fingerprinted
/// (an index taken under other settings is not read; a lock file found up to date under
/// others is opened again).
#[derive(Debug, Clone)]
pub struct IndexSettings {
    /// The directory tfsum runs in: relative paths of the run are relative to it.
    pub cwd: PathBuf,
    /// The paths the walk skips (`--ignore-path`).
    pub ignore: Vec<Regex>,
    /// `--upgrade`: every root is opened, and none is marked up to date.
    pub upgrade: bool,
    /// The platforms locked.
    pub platforms: Vec<Platform>,
    /// The flavor forced on every root (`--flavor`), if any.
    pub flavor: Option<Flavor>,
    /// Where provider packages come from (the registry, a mirror, …), rendered.
    pub packages: String,
    /// The CLI configuration's `host` and `provider_installation` blocks, rendered, or
    /// why none was read.
    pub installation: String,
}

/// What a run does with a root the index knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Decision {
    Open,
    UpToDate,
    /// Changed-files mode: none of the files given concerns it.
    Unconcerned,
}

/// Whether the run is over whole trees or over the files a commit changed.
enum Mode {
    Whole,
    /// The files given, absolute and normalised.
    Changed(Vec<PathBuf>),
}

/// What a `lock` run searches.
pub struct Searched<'a> {
    pub search: &'a [PathBuf],
    pub recursive: bool,
    /// Changed-files mode: the files given.
    pub changed: Option<&'a [PathBuf]>,
}

/// The index during one `tfsum lock` run.
pub struct IndexedRun {
    /// The working directory, absolute: relative paths of the run are relative to it.
    cwd: PathBuf,
    /// The paths the walk skips.
    ignore: Vec<Regex>,
    index: Index,
    mode: Mode,
    /// The settings a lock file found up to date was up to date under.
    fingerprint: String,
    upgrade: bool,
    /// By the root's number in the index.
    decisions: HashMap<u32, Decision>,
    /// Opened roots that may be marked up to date after the write stage (absolute).
    self_contained: HashSet<PathBuf>,
    /// The roots came from the index, not from root detection ([`IndexedRun::discover`]).
    from_index: bool,
}

impl IndexedRun {
    /// The index of the trees `searched`, when the run can keep one (`lock -r` or
    /// changed-files mode, a cache directory that keeps entries); and the warning when
    /// the stored one was refused. `started`: before anything of the tree was read (a
    /// file whose times are not older cannot be vouched for by its stamp).
    pub fn open(
        settings: IndexSettings,
        searched: &Searched<'_>,
        options: &LoadOptions,
        cache: &Cache,
        started: SystemTime,
    ) -> (Option<IndexedRun>, Option<Warning>) {
        if !searched.recursive || !cache.keeps_entries() {
            return (None, None);
        }
        let scope = index::scope(searched.search, searched.recursive, &settings.cwd);
        let load = load_fingerprint(&scope, &settings, options);
        let t = std::time::Instant::now();
        let (index, unusable) = Index::open(cache, &scope, load, &settings.cwd, started);
        tracing::debug!("configuration index read in {:?}", t.elapsed());
        let warning = match unusable {
            Unusable::Missing => None,
            Unusable::Refused { file, reason } => Some(Warning::Index { file, reason }),
        };
        let mode = match searched.changed {
            Some(files) => Mode::Changed(files.iter().map(|f| index.absolute(f)).collect()),
            None => Mode::Whole,
        };
        let run = IndexedRun {
            cwd: normalize_path(&settings.cwd),
            index,
            mode,
            fingerprint: run_fingerprint(&settings),
            upgrade: settings.upgrade,
            ignore: settings.ignore,
            decisions: HashMap::new(),
            self_contained: HashSet::new(),
            from_index: false,
        };
        (Some(run), warning)
    }

    /// Looks at what the last run's facts depend on, discovers (taking the listings of
    /// unchanged directories from the index) and decides each known root.
    ///
    /// A changed-files run in which no directory changed, no Terragrunt unit or stack,
    /// no Terraform Stack and no call through an expression was found last time, and no changed file
    /// changes what root detection reads, has the roots the last run found: it takes
    /// them from the index with no walk and no root detection, and the load stage is to
    /// open them as given roots ([`IndexedRun::roots_given`]).
    pub fn discover(
        &mut self,
        searched: &Searched<'_>,
        options: &LoadOptions,
    ) -> Result<Discovery, DiscoverError> {
        let index = &mut self.index;
        parallel::run(|| match &self.mode {
            Mode::Whole => index.look_at_everything(),
            Mode::Changed(files) => {
                index.look_at_directories();
                index.look_at(files);
            }
        });
        if let Some(mut discovery) = self.roots_from_index(options) {
            self.from_index = true;
            self.decide();
            self.narrow(&mut discovery);
            return Ok(discovery);
        }
        let known = self.index.known_listings();
        let discovery =
            discover::discover_knowing(searched.search, searched.recursive, &self.ignore, &known)?;
        let index = &mut self.index;
        parallel::run(|| index.learn_walk(discovery.listings.iter()));
        self.decide();
        Ok(discovery)
    }

    /// Whether the load stage is to open the roots of the discovery as given (no root
    /// detection): they came from the index.
    pub fn roots_given(&self) -> bool {
        self.from_index
    }

    /// The discovery of a changed-files run that can take its roots from the index (see
    /// [`IndexedRun::discover`]): every root the last run found, with the listings the
    /// index holds for the roots it may open.
    fn roots_from_index(&mut self, options: &LoadOptions) -> Option<Discovery> {
        let Mode::Changed(files) = &self.mode else {
            return None;
        };
        let found: Vec<PathBuf> = self
            .index
            .found()?
            .into_iter()
            .map(Path::to_path_buf)
            .collect();
        if self.index.has_other_roots()
            || self.index.calls_through_expressions()
            || self.index.any_directory_changed()
        {
            return None;
        }
        // A file given must lie in a directory the walk listed (any other is new).
        if !files.iter().all(|file| {
            file.parent()
                .is_some_and(|dir| self.index.listing(dir).is_some())
        }) {
            return None;
        }
        // A module directory a changed file belongs to must read as it did.
        let mut listings = Listings::default();
        for dir in self.index.modules_changed() {
            let run_dir = self.relative(&dir);
            let listing = self.index.listing(&dir)?;
            listings.insert(&run_dir, listing);
            if let Some(listing) = self.index.listing(&dir.join(DEFAULT_TEST_DIRECTORY)) {
                listings.insert(&run_dir.join(DEFAULT_TEST_DIRECTORY), listing);
            }
            let (now, inputs) = load::module_facts(&run_dir, options, &listings);
            let mut is: Vec<PathBuf> = now.calls.iter().map(|c| self.index.absolute(c)).collect();
            is.sort();
            is.dedup();
            let (record, was) = self.index.module_record(&dir)?;
            let mut was: Vec<PathBuf> = was.into_iter().map(Path::to_path_buf).collect();
            was.sort();
            was.dedup();
            if (record.backend, record.loaded) != (now.has_backend, now.loaded) || was != is {
                return None;
            }
            self.index
                .learn_module(&dir, &is, now.has_backend, now.loaded, &inputs);
        }
        let dirs: Vec<PathBuf> = found.iter().map(|root| self.relative(root)).collect();
        Some(Discovery {
            dirs,
            listings,
            ..Discovery::default()
        })
    }

    /// `abs` relative to the working directory, as the walk of a changed-files run
    /// (which searches `.`) spells it.
    fn relative(&self, abs: &Path) -> PathBuf {
        tfsum_config::paths::relative_path(abs, &self.cwd)
    }

    /// Keeps in `discovery` the roots to open and those answered from the index (the
    /// others concern no file given), with the listings the index holds for the module
    /// directories of the roots to open, so that loading them lists nothing again.
    fn narrow(&self, discovery: &mut Discovery) {
        let mut listings = Listings::default();
        let mut kept = Vec::new();
        for dir in std::mem::take(&mut discovery.dirs) {
            let Some(id) = self.index.id_of(&dir) else {
                kept.push(dir);
                continue;
            };
            match self.decisions.get(&id).copied().unwrap_or(Decision::Open) {
                Decision::Unconcerned => continue,
                Decision::UpToDate => {}
                Decision::Open => {
                    if let Some(record) = self.index.root_by_id(id) {
                        let (modules, _) = self.index.reach(record);
                        for module in modules {
                            for at in [module.to_path_buf(), module.join(DEFAULT_TEST_DIRECTORY)] {
                                if let Some(listing) = self.index.listing(&at) {
                                    listings.insert(&self.relative(&at), listing);
                                }
                            }
                        }
                    }
                }
            }
            kept.push(dir);
        }
        discovery.dirs = kept;
        discovery.listings.extend(listings);
    }

    /// Decides each root the index knows (module docs, step 3).
    fn decide(&mut self) {
        let ids = self.index.root_ids();
        let mut concerned = Vec::new();
        for id in ids {
            let Some(record) = self.index.root_by_id(id) else {
                continue;
            };
            let decision = if self.upgrade || !record.complete || record.evaluated_local {
                Decision::Open
            } else {
                match &self.mode {
                    Mode::Whole => self.whole_decision(record),
                    Mode::Changed(files) => {
                        if !self.index.root_stands(record, false) {
                            Decision::Open
                        } else if !reaches(&self.index, record, files) {
                            Decision::Unconcerned
                        } else {
                            concerned.push(id);
                            continue;
                        }
                    }
                }
            };
            self.decisions.insert(id, decision);
        }
        // The roots the files concern: stamped whole, then opened or answered.
        if !concerned.is_empty() {
            let index = &mut self.index;
            parallel::run(|| index.look_at_roots(&concerned));
        }
        for id in concerned {
            let decision = match self.index.root_by_id(id) {
                Some(record) => self.whole_decision(record),
                None => Decision::Open,
            };
            self.decisions.insert(id, decision);
        }
        let count = |d: Decision| self.decisions.values().filter(|x| **x == d).count();
        let (paths, modules, roots) = self.index.size();
        tracing::debug!(
            "configuration index: {paths} paths, {modules} module directories, {roots} roots known; {} roots up to date, {} unconcerned, {} to open",
            count(Decision::UpToDate),
            count(Decision::Unconcerned),
            count(Decision::Open),
        );
    }

    /// Up to date when every input was stamped unchanged and the last run found its
    /// lock file up to date under the same settings.
    fn whole_decision(&self, record: &RootRecord) -> Decision {
        let same_settings = record.up_to_date.as_deref() == Some(self.fingerprint.as_str());
        if same_settings && self.index.root_stands(record, true) {
            Decision::UpToDate
        } else {
            Decision::Open
        }
    }

    /// `abs` spelt as the run spells `like`: absolute, or relative to its directory.
    fn in_style_of(&self, abs: &Path, like: &Path) -> PathBuf {
        if like.is_absolute() {
            abs.to_path_buf()
        } else {
            tfsum_config::paths::relative_path(abs, &self.cwd)
        }
    }

    fn decision(&self, dir: &Path) -> Decision {
        self.index
            .id_of(dir)
            .and_then(|id| self.decisions.get(&id))
            .copied()
            .unwrap_or(Decision::Open)
    }

    /// The reports of the roots answered from the index (`skipped` by the load stage):
    /// each unchanged, as the pipeline would have found it.
    pub fn up_to_date_reports(&self, skipped: &[PathBuf]) -> Vec<RootReport> {
        skipped
            .iter()
            .filter(|dir| self.decision(dir) == Decision::UpToDate)
            .map(|dir| RootReport {
                dir: dir.clone(),
                kind: RootKind::Module,
                outcome: RootOutcome::Done {
                    change: Change::Unchanged,
                    file: None,
                    changes: Vec::new(),
                    diff: None,
                },
            })
            .collect()
    }

    /// Learns what the load stage read: the facts of the module directories it read,
    /// and of every module root it opened.
    pub fn learn(&mut self, loading: &Loading, discovery: &Discovery) {
        let listings = &discovery.listings;
        // Every input of what was read, gathered and then stamped on every core at
        // once (thousands of roots, a handful of files each).
        let module_inputs: Vec<Vec<PathBuf>> = parallel::run(|| {
            loading
                .read
                .par_iter()
                .map(|(dir, _)| {
                    let mut inputs = Vec::new();
                    module_inputs(dir, listings, true, &mut inputs);
                    inputs
                })
                .collect()
        });
        let mut of_dir = HashMap::new();
        let root_inputs: Vec<Option<Vec<u32>>> = loading
            .roots
            .iter()
            .map(|root| match &root.stage {
                Ok(loaded) if root.kind == RootKind::Module => {
                    self.root_inputs(&root.dir, loaded, listings, &mut of_dir)
                }
                _ => Some(Vec::new()),
            })
            .collect();
        let index = &mut self.index;
        parallel::run(|| {
            index.look_at(module_inputs.iter().flatten());
            index.look_at_numbers(root_inputs.iter().flatten().flatten().copied());
        });
        for ((dir, facts), inputs) in loading.read.iter().zip(&module_inputs) {
            self.index
                .learn_module(dir, &facts.calls, facts.has_backend, facts.loaded, inputs);
        }
        for (root, inputs) in loading.roots.iter().zip(&root_inputs) {
            if root.kind != RootKind::Module {
                continue;
            }
            match &root.stage {
                Ok(loaded) => {
                    // A path that is not UTF-8: the root cannot be kept.
                    let Some(inputs) = inputs else {
                        continue;
                    };
                    self.index.learn_root(
                        &root.dir,
                        LearntRoot {
                            complete: true,
                            modules: &loaded.modules,
                            value_files: &loaded.value_files,
                            evaluated_local: !loaded.evaluated_local.is_empty(),
                            inputs,
                        },
                    );
                    let plain_lock = loaded.lock_path == root.dir.join(LOCK_FILE_NAME);
                    if loaded.self_contained && plain_lock {
                        self.self_contained.insert(self.index.absolute(&root.dir));
                    }
                }
                Err(_) => self.index.learn_root(
                    &root.dir,
                    LearntRoot {
                        complete: false,
                        modules: &[],
                        value_files: &[],
                        evaluated_local: false,
                        inputs: &[],
                    },
                ),
            }
        }
        // A run that took its roots from the index ran no root detection: what it
        // found stands.
        if !self.from_index {
            self.index
                .learn_found(&loading.module_roots, &discovery.dirs);
        }
    }

    /// Learns which opened roots' lock files the write stage left unchanged.
    pub fn learn_written(&mut self, reports: &[RootReport]) {
        if self.upgrade {
            return;
        }
        for report in reports {
            let unchanged = report.outcome.change() == Some(Change::Unchanged);
            let dir = self.index.absolute(&report.dir);
            if unchanged && self.self_contained.contains(&dir) {
                self.index.up_to_date(&dir, &self.fingerprint);
            }
        }
    }

    /// Stores what the run learnt, if anything.
    pub fn save(self) {
        self.index.save();
    }
}

impl Prior for IndexedRun {
    fn module(&self, dir: &Path) -> Option<ModuleFacts> {
        let whole = matches!(self.mode, Mode::Whole);
        let (record, calls) = self.index.module(dir, whole)?;
        Some(ModuleFacts {
            calls: calls
                .into_iter()
                .map(|call| self.in_style_of(call, dir))
                .collect(),
            has_backend: record.backend,
            loaded: record.loaded,
        })
    }

    fn open(&self, dir: &Path) -> bool {
        self.decision(dir) == Decision::Open
    }
}

/// Whether the files given concern the root `record` stands for, by the rule the
/// `lock` command keeps roots by in changed-files mode: a file in one of its module directories (its own among them),
/// one of its var files, or a test file in its test directory.
fn reaches(index: &Index, record: &RootRecord, files: &[PathBuf]) -> bool {
    let root = index.path(record.dir);
    let tests = root.join(DEFAULT_TEST_DIRECTORY);
    let (modules, value_files) = index.reach(record);
    files.iter().any(|file| {
        let dir = file.parent().unwrap_or(Path::new("/"));
        let is_test = file
            .file_name()
            .and_then(|name| name.to_str())
            .is_some_and(is_test_file_name);
        dir == root
            || modules.contains(&dir)
            || value_files.contains(&file.as_path())
            || (is_test && dir == tests)
    })
}

/// The listing of `dir`: the walk's, or read now (a module outside the trees walked).
fn listing_of(dir: &Path, listings: &Listings) -> Option<std::sync::Arc<Listing>> {
    listings.listing(dir).ok()
}

impl IndexedRun {
    /// The numbers of every file and directory a loaded root's result was read from:
    /// each module directory of its tree with its files (numbered once per directory,
    /// in `of_dir`: thousands of roots call the same few modules), its test files, its
    /// lock file (and where it leads), `modules.json` when an `init` left one, and its
    /// var files. `None` if one is not UTF-8.
    fn root_inputs(
        &mut self,
        dir: &Path,
        loaded: &Loaded,
        listings: &Listings,
        of_dir: &mut HashMap<(u32, bool), Option<Vec<u32>>>,
    ) -> Option<Vec<u32>> {
        let index = &mut self.index;
        let root = index.id(dir)?;
        let mut ids = Vec::new();
        for module in &loaded.modules {
            let id = index.id(module)?;
            // Only the root's own directory brings its tests.
            let tests = id == root;
            let inputs = of_dir.entry((id, tests)).or_insert_with(|| {
                let mut paths = Vec::new();
                module_inputs(module, listings, tests, &mut paths);
                index.numbers(&paths)
            });
            ids.extend(inputs.as_ref()?);
        }
        let mut own = vec![dir.join(LOCK_FILE_NAME), loaded.lock_path.clone()];
        let has_data_dir =
            listing_of(dir, listings).is_some_and(|l| l.get(tfsum_config::DATA_DIR).is_some());
        if has_data_dir {
            own.push(
                dir.join(tfsum_config::DATA_DIR)
                    .join("modules")
                    .join("modules.json"),
            );
        }
        own.extend(loaded.value_files.iter().cloned());
        ids.extend(index.numbers(&own)?);
        Some(ids)
    }
}

/// What shapes loading, besides the files: the trees searched, the forced flavor, the
/// ignored paths and where variables take their values. An index taken under other
/// settings is not read.
fn load_fingerprint(scope: &str, settings: &IndexSettings, options: &LoadOptions) -> String {
    let ignore: Vec<&str> = settings.ignore.iter().map(Regex::as_str).collect();
    index::fingerprint(&[
        scope,
        &format!("{:?}", options.flavor),
        &ignore.join("\n"),
        &format!("{:?}", options.values),
        &format!("{:?}", options.within),
    ])
}

/// What else decides whether a lock file is up to date: the platforms, the forced
/// flavor, where packages come from, and the CLI configuration's `host` and
/// `provider_installation` blocks.
fn run_fingerprint(settings: &IndexSettings) -> String {
    let platforms: Vec<String> = settings.platforms.iter().map(ToString::to_string).collect();
    let parts = BTreeMap::from([
        ("platforms", platforms.join(",")),
        ("flavor", format!("{:?}", settings.flavor)),
        ("packages", settings.packages.clone()),
        ("installation", settings.installation.clone()),
    ]);
    index::run_fingerprint(&parts)
}
