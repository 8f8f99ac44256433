//! The configuration index: what the last `tfsum lock` over a tree learnt from its
//! configuration, each fact with the metadata of every file and directory it was read
//! from, so that the next run reads again only what changed (issue 43). It lives in the
//! user's cache only ([`crate::cache`], `v2/index/`), one entry per tree searched.
//!
//! # What it holds
//!
//! - **Paths** ([`Paths`]): every file and directory a fact depends on, absolute and
//!   normalised, each with the [`Stamp`] it had when it was read: kind, size,
//!   modification and change times in nanoseconds, inode and device.
//! - **Listings**: what each directory the walk listed held, so that discovery lists
//!   again only the directories whose own stamp moved (adding, removing or renaming an
//!   entry changes a directory's modification and change times).
//! - **Module facts** ([`ModuleRecord`]): for each module directory, what root detection
//!   reads of it: the directories its local calls name, whether it has a backend block.
//! - **Root facts** ([`RootRecord`]): for each root module, the directories and files its
//!   result depends on (its module tree, its test files, its lock file, its var files),
//!   which of them its tree reaches (the reverse graph of changed-files mode), and,
//!   when its lock file was found up to date, the settings it was up to date under.
//!
//! # When a stamp vouches for a file
//!
//! A fact is believed only while every input's stamp is unchanged ([`Stamp::vouches_for`]).
//! As git's index does, a stamp taken too close to the moment it was read proves
//! nothing: a file written in the same clock tick as it was read can change again
//! without moving its times ("racy git"). A stamp whose modification or change time is
//! not at least [`RACY`] older than the start of the run that took it is marked racy,
//! and a racy stamp vouches for nothing: the next run reads the file again. Setting a
//! file's modification time back does not hide an edit: its change time moves (no
//! program can set it), and so does its inode when an editor replaces the file. Where
//! the platform has no change time or inode (Windows), no stamp vouches for anything,
//! and every run reads everything, as without an index.
//!
//! # Trust and storage
//!
//! The entry is one checked envelope of the cache (written atomically, a truncated or
//! edited one refused and rebuilt, with one warning). It records the tfsum version and a
//! fingerprint of the settings that shape loading (`load`); an entry of another version
//! or other settings is not read. It is never read from or written to the repository.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::cache::{Cache, Checked};
use crate::walk::{KnownListings, Listing};
use tfsum_vocab::paths::normalize_path;

/// The shape of the entry; another is not read.
pub(crate) const FORMAT: u32 = 1;

/// How much older than the start of a run a file's times must be for the stamp taken in
/// that run to vouch for the content read (module docs). Two seconds cover the coarsest
/// timestamps in use (FAT's two seconds, HFS+'s one) and the kernel's clock tick.
pub(crate) const RACY: Duration = Duration::from_secs(2);

/// The version of tfsum that writes and reads entries.
const TFSUM: &str = env!("CARGO_PKG_VERSION");

/// No parent: the path is a root of the file system (`/`, `C:\`).
const TOP: u32 = u32::MAX;

/// A path's metadata when it was read: `[kind, size, mtime ns, ctime ns, inode, device]`
/// (compact, for an entry of tens of thousands of paths). The kind's bit 8 marks a racy
/// stamp.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub(crate) struct Stamp([i64; 6]);

const ABSENT: i64 = 0;
const FILE: i64 = 1;
const DIR: i64 = 2;
const OTHER: i64 = 3;
/// Could not be stamped (an error other than "not found", a platform without change
/// times): vouches for nothing.
const UNKNOWN: i64 = 4;
const RACY_BIT: i64 = 8;

impl Stamp {
    /// A path never stamped.
    pub(crate) const UNKNOWN: Stamp = Stamp([UNKNOWN, 0, 0, 0, 0, 0]);

    /// `path` now (following links: a link's target is what is read), racy unless its
    /// times are at least [`RACY`] older than `started`.
    pub(crate) fn of(path: &Path, started: SystemTime) -> Stamp {
        match std::fs::metadata(path) {
            Ok(meta) => Stamp::from_metadata(&meta, started),
            Err(e) if is_absence(&e) => Stamp([ABSENT, 0, 0, 0, 0, 0]),
            Err(_) => Stamp::UNKNOWN,
        }
    }

    #[cfg(unix)]
    fn from_metadata(meta: &std::fs::Metadata, started: SystemTime) -> Stamp {
        use std::os::unix::fs::MetadataExt as _;
        let kind = if meta.is_file() {
            FILE
        } else if meta.is_dir() {
            DIR
        } else {
            OTHER
        };
        let mtime = meta.mtime().saturating_mul(1_000_000_000) + meta.mtime_nsec();
        let ctime = meta.ctime().saturating_mul(1_000_000_000) + meta.ctime_nsec();
        let trusted_before = nanos(started) - RACY.as_nanos() as i64;
        let racy = mtime.max(ctime) >= trusted_before;
        Stamp([
            kind | if racy { RACY_BIT } else { 0 },
            meta.size() as i64,
            mtime,
            ctime,
            meta.ino() as i64,
            meta.dev() as i64,
        ])
    }

    /// Without a change time and an inode, metadata cannot prove a file unchanged (its
    /// modification time can be set back): nothing is vouched for.
    #[cfg(not(unix))]
    fn from_metadata(_meta: &std::fs::Metadata, _started: SystemTime) -> Stamp {
        Stamp::UNKNOWN
    }

    fn kind(self) -> i64 {
        self.0[0] & !RACY_BIT
    }

    /// Taken too close to the read to vouch for it.
    pub(crate) fn is_racy(self) -> bool {
        self.0[0] & RACY_BIT != 0
    }

    /// Nothing was at the path.
    #[cfg(test)]
    fn is_absent(self) -> bool {
        self.kind() == ABSENT
    }

    pub(crate) fn is_dir(self) -> bool {
        self.kind() == DIR
    }

    /// Whether what was read under this stamp is still what `now` (a stamp of the same
    /// path taken now) would read: the same metadata, and this stamp not racy.
    pub(crate) fn vouches_for(self, now: Stamp) -> bool {
        let kind = self.kind();
        kind != UNKNOWN
            && now.kind() != UNKNOWN
            && !self.is_racy()
            && kind == now.kind()
            && self.0[1..] == now.0[1..]
    }
}

/// Whether an error stamping a path means nothing is there.
fn is_absence(e: &std::io::Error) -> bool {
    e.kind() == std::io::ErrorKind::NotFound || e.raw_os_error() == Some(20 /* ENOTDIR */)
}

fn nanos(time: SystemTime) -> i64 {
    time.duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos() as i64)
        .unwrap_or(0)
}

/// What root detection reads of one module directory (`config::tree::find_roots`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModuleRecord {
    pub dir: u32,
    /// The directories its local calls name (its own excluded).
    pub calls: Vec<u32>,
    pub backend: bool,
    /// False when it did not load (its calls then come from a text scan).
    pub loaded: bool,
    /// What it was read from.
    pub inputs: Vec<u32>,
}

/// What one root module's result depends on, and what it reaches.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RootRecord {
    pub dir: u32,
    /// Its module tree loaded, so `modules` and `value_files` are whole; a root that
    /// failed to load is loaded again by every run that might concern it.
    pub complete: bool,
    /// Every module directory of its tree, its own first.
    pub modules: Vec<u32>,
    /// The var files its module sources' values came from.
    pub value_files: Vec<u32>,
    /// Its tree calls local modules through expressions: they may not be roots, which
    /// only loading it tells, so it is loaded whenever roots are chosen.
    pub evaluated_local: bool,
    /// Every directory and file its result was read from.
    pub inputs: Vec<u32>,
    /// When its lock file was found up to date, the fingerprint of the run's settings
    /// ([`run_fingerprint`]); `None` when it may not be answered from the index.
    pub up_to_date: Option<String>,
}

/// The entry as stored.
#[derive(Serialize, Deserialize)]
struct Stored<'a> {
    format: u32,
    #[serde(borrow)]
    tfsum: &'a str,
    load: &'a str,
    /// Parent, name, stamp; a parent comes before its children.
    #[serde(borrow)]
    paths: Vec<(u32, &'a str, Stamp)>,
    walked: Vec<(u32, Listing)>,
    modules: Vec<ModuleRecord>,
    roots: Vec<RootRecord>,
    /// The module roots root detection found (opened or not), when it ran.
    found: Option<Vec<u32>>,
}

/// Every path the index knows, by number: their bytes in one arena (tens of thousands of
/// paths, read by every run, would otherwise be as many allocations), found by a hash of
/// their bytes (every path here is absolute and normalised, so equal paths are equal
/// bytes; hashing bytes is far cheaper than hashing path components).
#[derive(Debug, Default)]
struct Paths {
    arena: String,
    /// Where each path's bytes are in `arena`.
    spans: Vec<(u32, u32)>,
    parent: Vec<u32>,
    /// The stamp each fact carried over from the last run was read under.
    stamps: Vec<Stamp>,
    /// By hash of the bytes: the last path with that hash; `next` chains the others.
    heads: rustc_hash::FxHashMap<u64, u32>,
    next: Vec<u32>,
}

fn hash_bytes(bytes: &[u8]) -> u64 {
    use std::hash::Hasher as _;
    let mut hasher = rustc_hash::FxHasher::default();
    hasher.write(bytes);
    hasher.finish()
}

impl Paths {
    /// The number of `path` (absolute, normalised), given one if new (its ancestors too).
    /// A path that is not UTF-8 is given none.
    fn id(&mut self, path: &Path) -> Option<u32> {
        let text = path.to_str()?;
        if let Some(id) = self.get_str(text) {
            return Some(id);
        }
        let parent = match path.parent() {
            Some(parent) if parent != path => self.id(parent)?,
            _ => TOP,
        };
        Some(self.push(text, parent))
    }

    /// The number of `text`, an absolute normal path, given one if new (its ancestors
    /// too).
    fn id_str(&mut self, text: &str) -> u32 {
        if let Some(id) = self.get_str(text) {
            return id;
        }
        let parent = match text.rfind('/') {
            Some(0) if text.len() > 1 => self.id_str("/"),
            Some(slash) if slash > 0 => self.id_str(&text[..slash]),
            _ => TOP,
        };
        self.push(text, parent)
    }

    /// Numbers `path`, known to be new, whose parent is numbered `parent`.
    fn push(&mut self, path: &str, parent: u32) -> u32 {
        let id = self.spans.len() as u32;
        self.spans
            .push((self.arena.len() as u32, path.len() as u32));
        self.arena.push_str(path);
        self.parent.push(parent);
        self.stamps.push(Stamp::UNKNOWN);
        let hash = hash_bytes(path.as_bytes());
        let previous = self.heads.insert(hash, id).unwrap_or(TOP);
        self.next.push(previous);
        id
    }

    fn get_str(&self, path: &str) -> Option<u32> {
        let mut id = *self.heads.get(&hash_bytes(path.as_bytes()))?;
        while id != TOP {
            if self.text(id) == path {
                return Some(id);
            }
            id = self.next[id as usize];
        }
        None
    }

    fn get(&self, path: &Path) -> Option<u32> {
        self.get_str(path.to_str()?)
    }

    fn text(&self, id: u32) -> &str {
        let (start, len) = self.spans[id as usize];
        &self.arena[start as usize..(start + len) as usize]
    }

    fn path(&self, id: u32) -> &Path {
        Path::new(self.text(id))
    }

    fn len(&self) -> usize {
        self.spans.len()
    }
}

/// Why an entry was not used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unusable {
    /// There was none (or it is of another tfsum, format or settings): nothing to say.
    Missing,
    /// It was damaged or about something else: the reason, for one warning.
    Refused { file: PathBuf, reason: String },
}

/// The index of one tree during one run: the facts of the last run, what this run has
/// seen of their inputs, and the facts it learns.
pub struct Index {
    cache: Cache,
    relative: PathBuf,
    about: String,
    load: String,
    cwd: PathBuf,
    started: SystemTime,
    paths: Paths,
    /// What this run saw at each path, by number (`None`: not looked at).
    seen: Vec<Option<Stamp>>,
    walked: HashMap<u32, Arc<Listing>>,
    modules: HashMap<u32, ModuleRecord>,
    roots: HashMap<u32, RootRecord>,
    /// The module roots the last root detection found.
    found: Option<Vec<u32>>,
    /// Facts learnt in this run: believed without checking their inputs again.
    fresh_modules: std::collections::HashSet<u32>,
    fresh_roots: std::collections::HashSet<u32>,
    /// Listings of this run's walk, replacing the old ones when saved.
    new_walked: Option<HashMap<u32, Arc<Listing>>>,
    /// How many paths the stored entry had, and whether a fact was dropped: with no
    /// fact learnt, no stamp moved and none dropped, there is nothing to store.
    stored_paths: usize,
    dropped: bool,
}

/// The key of the trees a run searches: their absolute paths and whether it searches
/// below them.
pub fn scope(search: &[PathBuf], recursive: bool, cwd: &Path) -> String {
    let mut paths: Vec<String> = search
        .iter()
        .map(|p| absolute_in(cwd, p).to_string_lossy().into_owned())
        .collect();
    paths.sort();
    paths.dedup();
    format!("{}{}", if recursive { "-r " } else { "" }, paths.join("\n"))
}

/// A fingerprint of `parts` (settings rendered as text): what the index keeps instead
/// of the settings themselves.
pub fn fingerprint(parts: &[&str]) -> String {
    let mut hasher = Sha256::new();
    for part in parts {
        hasher.update((part.len() as u64).to_le_bytes());
        hasher.update(part.as_bytes());
    }
    hex::encode(&hasher.finalize()[..16])
}

/// Whether `text` is a normal path (on Unix): no empty, `.` or `..` part, absolute
/// exactly when `absolute` says so. Most paths of a run are normal already (the walk's,
/// the tree's), and checking the bytes is far cheaper than taking components apart.
fn is_normal(text: &str, absolute: bool) -> bool {
    let normal_part = |part: &[u8]| !matches!(part, b"" | b"." | b"..");
    let bytes = text.as_bytes();
    cfg!(unix)
        && match bytes.strip_prefix(b"/") {
            Some(b"") => absolute,
            Some(rest) => absolute && rest.split(|b| *b == b'/').all(normal_part),
            None => !absolute && bytes.split(|b| *b == b'/').all(normal_part),
        }
}

/// `path` absolute against `cwd`, normalised.
fn absolute_in(cwd: &Path, path: &Path) -> PathBuf {
    let normal = path
        .to_str()
        .is_some_and(|text| is_normal(text, path.is_absolute()));
    match (path.is_absolute(), normal) {
        (true, true) => path.to_path_buf(),
        (false, true) => cwd.join(path),
        (true, false) => normalize_path(path),
        (false, false) => normalize_path(&cwd.join(path)),
    }
}

impl Index {
    /// The index of `scope` in `cache`, if there is one for this tfsum and `load`
    /// (the fingerprint of the settings that shape loading); else an empty one, and why.
    /// Paths the run gives relative are taken against `cwd`; `started` is when the run
    /// began (stamps closer to it than [`RACY`] vouch for nothing).
    pub fn open(
        cache: &Cache,
        scope: &str,
        load: String,
        cwd: &Path,
        started: SystemTime,
    ) -> (Index, Unusable) {
        let relative = crate::cache::index_file(scope);
        let about = format!("the configuration index of {scope}");
        let mut index = Index {
            cache: cache.clone(),
            relative,
            about,
            load,
            cwd: cwd.to_path_buf(),
            started,
            paths: Paths::default(),
            seen: Vec::new(),
            walked: HashMap::new(),
            modules: HashMap::new(),
            roots: HashMap::new(),
            found: None,
            fresh_modules: Default::default(),
            fresh_roots: Default::default(),
            new_walked: None,
            stored_paths: 0,
            dropped: false,
        };
        let bytes = match cache.read_large(&index.relative, &index.about) {
            Checked::Found(bytes) => bytes,
            Checked::Missing => return (index, Unusable::Missing),
            Checked::Refused(reason) => {
                let file = cache
                    .root()
                    .map(|root| root.join(&index.relative))
                    .unwrap_or_default();
                return (index, Unusable::Refused { file, reason });
            }
        };
        let stored: Stored<'_> = match postcard::from_bytes(&bytes) {
            Ok(stored) => stored,
            Err(e) => {
                let file = cache
                    .root()
                    .map(|root| root.join(&index.relative))
                    .unwrap_or_default();
                let reason = format!("it is damaged ({e})");
                return (index, Unusable::Refused { file, reason });
            }
        };
        if stored.format != FORMAT || stored.tfsum != TFSUM || stored.load != index.load {
            return (index, Unusable::Missing);
        }
        match index.take(stored) {
            Ok(()) => (index, Unusable::Missing),
            Err(reason) => {
                let file = cache
                    .root()
                    .map(|root| root.join(&index.relative))
                    .unwrap_or_default();
                index.forget();
                (index, Unusable::Refused { file, reason })
            }
        }
    }

    /// Takes the facts of a stored entry; an entry whose numbers do not fit is refused.
    fn take(&mut self, stored: Stored<'_>) -> Result<(), String> {
        let count = stored.paths.len() as u32;
        self.paths.spans.reserve(stored.paths.len());
        self.paths.parent.reserve(stored.paths.len());
        self.paths.stamps.reserve(stored.paths.len());
        self.paths.next.reserve(stored.paths.len());
        self.paths.heads.reserve(stored.paths.len());
        self.paths.arena.reserve(stored.paths.len() * 64);
        let mut full = String::new();
        for (i, (parent, name, stamp)) in stored.paths.into_iter().enumerate() {
            full.clear();
            if parent == TOP {
                full.push_str(name);
            } else if parent < i as u32
                && !name.is_empty()
                && !name.contains(['/', '\\'])
                && name != ".."
                && name != "."
            {
                let above = self.paths.text(parent);
                full.push_str(above);
                if !above.ends_with(std::path::MAIN_SEPARATOR) {
                    full.push(std::path::MAIN_SEPARATOR);
                }
                full.push_str(name);
            } else {
                return Err(format!("path {i} is not below an earlier one"));
            }
            if self.paths.get_str(&full).is_some() || !Path::new(&full).is_absolute() {
                return Err(format!("path {i} is listed twice or not absolute"));
            }
            self.paths.push(&full, parent);
            self.paths.stamps[i] = stamp;
        }
        let fits = |id: u32| id < count;
        for (dir, listing) in stored.walked {
            if !fits(dir) {
                return Err("a listing names no path".to_string());
            }
            self.walked.insert(dir, Arc::new(listing));
        }
        for module in stored.modules {
            let ids = [module.dir].into_iter().chain(module.calls.iter().copied());
            if !ids.chain(module.inputs.iter().copied()).all(fits) {
                return Err("a module names no path".to_string());
            }
            self.modules.insert(module.dir, module);
        }
        for root in stored.roots {
            let ids = [root.dir].into_iter().chain(root.modules.iter().copied());
            let ids = ids
                .chain(root.value_files.iter().copied())
                .chain(root.inputs.iter().copied());
            if !ids.collect::<Vec<_>>().into_iter().all(fits) {
                return Err("a root names no path".to_string());
            }
            self.roots.insert(root.dir, root);
        }
        if let Some(found) = &stored.found {
            if !found.iter().copied().all(fits) {
                return Err("a root names no path".to_string());
            }
        }
        self.found = stored.found;
        self.seen = vec![None; self.paths.len()];
        self.stored_paths = self.paths.len();
        Ok(())
    }

    /// Drops every fact (an entry that turned out unusable).
    fn forget(&mut self) {
        self.paths = Paths::default();
        self.seen.clear();
        self.walked.clear();
        self.modules.clear();
        self.roots.clear();
        self.found = None;
    }

    /// Whether the index holds any fact at all.
    #[cfg(test)]
    fn is_empty(&self) -> bool {
        self.walked.is_empty() && self.modules.is_empty() && self.roots.is_empty()
    }

    /// `path` as the index spells it: absolute, normalised.
    pub fn absolute(&self, path: &Path) -> PathBuf {
        absolute_in(&self.cwd, path)
    }

    /// The number of `path`, if the index knows it.
    pub fn id_of(&self, path: &Path) -> Option<u32> {
        if path.is_absolute() {
            if let Some(id) = self.paths.get(path) {
                return Some(id);
            }
        }
        self.paths.get(&self.absolute(path))
    }

    /// The number of `path`, given one if new; `None` for a path that is not UTF-8,
    /// which the index cannot keep (what depends on it is not kept either).
    pub fn id(&mut self, path: &Path) -> Option<u32> {
        // Learning a run numbers every input of every root: most are absolute and
        // normal, and are numbered as they are, without a copy.
        let id = match path.to_str() {
            Some(text) if is_normal(text, true) => Some(self.paths.id_str(text)),
            _ => self.paths.id(&self.absolute(path)),
        };
        if self.seen.len() < self.paths.len() {
            self.seen.resize(self.paths.len(), None);
        }
        id
    }

    /// Looks at every path in `ids` not looked at yet in this run, on every core.
    fn look(&mut self, ids: impl IntoIterator<Item = u32>) {
        let mut todo: Vec<u32> = ids
            .into_iter()
            .filter(|id| self.seen[*id as usize].is_none())
            .collect();
        todo.sort_unstable();
        todo.dedup();
        let started = self.started;
        let paths = &self.paths;
        let stamp = |id: &u32| (*id, Stamp::of(paths.path(*id), started));
        // A few paths are not worth sending to other threads.
        let stamps: Vec<(u32, Stamp)> = if todo.len() < 64 {
            todo.iter().map(stamp).collect()
        } else {
            todo.par_iter().with_min_len(64).map(stamp).collect()
        };
        for (id, stamp) in stamps {
            self.seen[id as usize] = Some(stamp);
        }
    }

    /// Looks at every path the last run's facts depend on (a whole run).
    pub fn look_at_everything(&mut self) {
        let known: Vec<u32> = (0..self.paths.len() as u32)
            .filter(|id| self.paths.stamps[*id as usize] != Stamp::UNKNOWN)
            .collect();
        self.look(known);
    }

    /// Looks at every directory the last run knew, then at every known file in a
    /// directory that changed (changed-files mode: a file edited where it is, in a
    /// directory that did not change, is believed until a whole run or a run given it).
    pub fn look_at_directories(&mut self) {
        let dirs: Vec<u32> = (0..self.paths.len() as u32)
            .filter(|id| self.paths.stamps[*id as usize].is_dir())
            .collect();
        self.look(dirs);
        let moved: Vec<u32> = (0..self.paths.len() as u32)
            .filter(|id| {
                let parent = self.paths.parent[*id as usize];
                parent != TOP
                    && self.paths.stamps[*id as usize] != Stamp::UNKNOWN
                    && self.changed(parent) == Some(true)
            })
            .collect();
        self.look(moved);
    }

    /// Looks at the paths numbered `ids`.
    pub fn look_at_numbers(&mut self, ids: impl IntoIterator<Item = u32>) {
        self.look(ids);
    }

    /// Looks at `paths` (the files a changed-files run was given).
    pub fn look_at<'a>(&mut self, paths: impl IntoIterator<Item = &'a PathBuf>) {
        let ids: Vec<u32> = paths.into_iter().filter_map(|p| self.id(p)).collect();
        self.look(ids);
    }

    /// Whether the path numbered `id` changed since its facts were read: `None` when
    /// this run has not looked.
    fn changed(&self, id: u32) -> Option<bool> {
        let now = self.seen.get(id as usize).copied().flatten()?;
        Some(!self.paths.stamps[id as usize].vouches_for(now))
    }

    /// Whether every input in `ids` was looked at and found unchanged.
    fn all_unchanged(&self, ids: &[u32]) -> bool {
        ids.iter().all(|id| self.changed(*id) == Some(false))
    }

    /// Whether no input in `ids` was found changed (those not looked at are believed).
    fn none_changed(&self, ids: &[u32]) -> bool {
        ids.iter().all(|id| self.changed(*id) != Some(true))
    }

    /// Listings the walk may take: those of directories looked at and found unchanged.
    pub fn known_listings(&self) -> KnownFromIndex<'_> {
        KnownFromIndex { index: self }
    }

    /// The facts root detection needs of the module directory `dir`, while they stand:
    /// its local calls (absolute) and backend, or `None` when it did not load.
    pub fn module(&self, dir: &Path, whole: bool) -> Option<(&ModuleRecord, Vec<&Path>)> {
        let record = self.modules.get(&self.id_of(dir)?)?;
        let stands = if self.fresh_modules.contains(&record.dir) {
            true
        } else if whole {
            self.all_unchanged(&record.inputs)
        } else {
            self.none_changed(&record.inputs)
        };
        if !stands {
            return None;
        }
        let calls = record.calls.iter().map(|id| self.paths.path(*id)).collect();
        Some((record, calls))
    }

    /// Whether the root's inputs stand: all looked at and unchanged (`whole`), or none
    /// seen changed.
    pub fn root_stands(&self, record: &RootRecord, whole: bool) -> bool {
        if whole {
            self.all_unchanged(&record.inputs)
        } else {
            self.none_changed(&record.inputs)
        }
    }

    /// Looks at every input of the roots numbered `ids` not looked at yet.
    pub fn look_at_roots(&mut self, ids: &[u32]) {
        let inputs: Vec<u32> = ids
            .iter()
            .filter_map(|id| self.roots.get(id))
            .flat_map(|record| record.inputs.iter().copied())
            .collect();
        self.look(inputs);
    }

    /// The numbers of the roots the last run recorded.
    pub fn root_ids(&self) -> Vec<u32> {
        let mut ids: Vec<u32> = self.roots.keys().copied().collect();
        ids.sort_unstable();
        ids
    }

    /// The facts the index holds about the module directory `dir`, stale or not, and
    /// its calls.
    pub fn module_record(&self, dir: &Path) -> Option<(&ModuleRecord, Vec<&Path>)> {
        let record = self.modules.get(&self.id_of(dir)?)?;
        let calls = record.calls.iter().map(|id| self.paths.path(*id)).collect();
        Some((record, calls))
    }

    /// The last run's facts about the root numbered `id`.
    pub fn root_by_id(&self, id: u32) -> Option<&RootRecord> {
        self.roots.get(&id)
    }

    /// The path numbered `id`.
    pub fn path(&self, id: u32) -> &Path {
        self.paths.path(id)
    }

    /// The paths of `ids`.
    pub(crate) fn paths_of<'a>(&'a self, ids: &'a [u32]) -> impl Iterator<Item = &'a Path> {
        ids.iter().map(|id| self.paths.path(*id))
    }

    /// Records what root detection read of the module directory `dir` in this run.
    pub fn learn_module(
        &mut self,
        dir: &Path,
        calls: &[PathBuf],
        backend: bool,
        loaded: bool,
        inputs: &[PathBuf],
    ) {
        let Some(dir) = self.id(dir) else {
            return;
        };
        let Some(calls) = calls.iter().map(|c| self.id(c)).collect() else {
            return;
        };
        let Some(inputs) = self.inputs(inputs) else {
            return;
        };
        self.modules.insert(
            dir,
            ModuleRecord {
                dir,
                calls,
                backend,
                loaded,
                inputs,
            },
        );
        self.fresh_modules.insert(dir);
    }

    /// Records what the root `dir` was read from in this run.
    pub fn learn_root(&mut self, dir: &Path, learnt: LearntRoot<'_>) {
        let Some(dir_id) = self.id(dir) else {
            return;
        };
        let Some(modules) = learnt.modules.iter().map(|m| self.id(m)).collect() else {
            return;
        };
        let Some(value_files) = learnt.value_files.iter().map(|f| self.id(f)).collect() else {
            return;
        };
        let mut inputs = learnt.inputs.to_vec();
        inputs.sort_unstable();
        inputs.dedup();
        self.look(inputs.iter().copied());
        self.roots.insert(
            dir_id,
            RootRecord {
                dir: dir_id,
                complete: learnt.complete,
                modules,
                value_files,
                evaluated_local: learnt.evaluated_local,
                inputs,
                up_to_date: None,
            },
        );
        self.fresh_roots.insert(dir_id);
    }

    /// Marks the root `dir`, learnt in this run, up to date under the run settings
    /// `fingerprint`.
    pub fn up_to_date(&mut self, dir: &Path, fingerprint: &str) {
        if let Some(id) = self.id_of(dir) {
            if self.fresh_roots.contains(&id) {
                if let Some(record) = self.roots.get_mut(&id) {
                    record.up_to_date = Some(fingerprint.to_string());
                }
            }
        }
    }

    /// The numbers of `inputs`, each looked at (after it was read: a change since the
    /// run began makes the stamp racy, so it vouches for nothing).
    fn inputs(&mut self, inputs: &[PathBuf]) -> Option<Vec<u32>> {
        let mut ids: Vec<u32> = inputs.iter().map(|p| self.id(p)).collect::<Option<_>>()?;
        ids.sort_unstable();
        ids.dedup();
        self.look(ids.iter().copied());
        Some(ids)
    }

    /// The numbers of `paths`, given them if new; `None` if one is not UTF-8 (what
    /// depends on it cannot be kept).
    pub fn numbers<'a>(
        &mut self,
        paths: impl IntoIterator<Item = &'a PathBuf>,
    ) -> Option<Vec<u32>> {
        paths.into_iter().map(|p| self.id(p)).collect()
    }

    /// Keeps this run's walk: its listings replace the last run's when saved.
    pub fn learn_walk<'a>(&mut self, listings: impl Iterator<Item = (&'a Path, &'a Arc<Listing>)>) {
        let mut walked = HashMap::new();
        let mut ids = Vec::new();
        for (dir, listing) in listings {
            if let Some(id) = self.id(dir) {
                ids.push(id);
                walked.insert(id, listing.clone());
            }
        }
        self.look(ids);
        self.new_walked = Some(walked);
    }

    /// Records what root detection found, the module roots among the module
    /// directories `modules`, and forgets the facts about the rest.
    pub fn learn_found(&mut self, roots: &[PathBuf], modules: &[PathBuf]) {
        let found: Vec<u32> = roots.iter().filter_map(|r| self.id(r)).collect();
        let roots: std::collections::HashSet<u32> = found.iter().copied().collect();
        let modules: std::collections::HashSet<u32> =
            modules.iter().filter_map(|m| self.id_of(m)).collect();
        let before = (self.roots.len(), self.modules.len());
        self.roots.retain(|id, _| roots.contains(id));
        self.modules.retain(|id, _| modules.contains(id));
        let mut sorted = found;
        sorted.sort_unstable();
        self.dropped |= before != (self.roots.len(), self.modules.len())
            || self.found.as_ref() != Some(&sorted);
        self.found = Some(sorted);
    }

    /// The module roots the last root detection found, absolute.
    pub fn found(&self) -> Option<Vec<&Path>> {
        let found = self.found.as_ref()?;
        Some(found.iter().map(|id| self.paths.path(*id)).collect())
    }

    /// Whether a directory the last walk listed holds a root that is no root module: a
    /// Terragrunt unit or stack, or a Terraform Stack (`*.tfcomponent.hcl`).
    pub fn has_other_roots(&self) -> bool {
        self.walked.values().any(|listing| {
            listing.get(tfsum_vocab::paths::UNIT_FILE_NAME).is_some()
                || listing.get(tfsum_vocab::paths::STACK_FILE_NAME).is_some()
                || listing
                    .entries()
                    .any(|(name, _)| tfsum_vocab::paths::stack_file_name(name).is_some())
        })
    }

    /// Whether a root of the last run called local modules through expressions.
    pub fn calls_through_expressions(&self) -> bool {
        self.roots.values().any(|root| root.evaluated_local)
    }

    /// Whether a directory this run looked at changed (or was stamped racy).
    pub fn any_directory_changed(&self) -> bool {
        (0..self.paths.len() as u32)
            .any(|id| self.paths.stamps[id as usize].is_dir() && self.changed(id) != Some(false))
    }

    /// The listing the last walk took of `dir`, when `dir` was looked at and unchanged.
    pub fn listing(&self, dir: &Path) -> Option<Arc<Listing>> {
        let id = self.id_of(dir)?;
        if self.changed(id) != Some(false) {
            return None;
        }
        self.walked.get(&id).cloned()
    }

    /// The module directories some input of which this run saw changed, absolute.
    pub fn modules_changed(&self) -> Vec<PathBuf> {
        let mut dirs: Vec<PathBuf> = self
            .modules
            .values()
            .filter(|m| !self.none_changed(&m.inputs))
            .map(|m| self.paths.path(m.dir).to_path_buf())
            .collect();
        dirs.sort();
        dirs
    }

    /// Whether the run learnt anything the stored entry does not say.
    fn learnt_anything(&self) -> bool {
        let moved = self
            .seen
            .iter()
            .zip(&self.paths.stamps)
            .any(|(seen, stored)| seen.is_some_and(|seen| seen != *stored));
        let relisted = self.new_walked.as_ref().is_some_and(|walked| {
            walked.len() != self.walked.len()
                || walked.iter().any(|(id, listing)| {
                    !self
                        .walked
                        .get(id)
                        .is_some_and(|old| Arc::ptr_eq(old, listing))
                })
        });
        tracing::debug!(
            dropped = self.dropped,
            fresh_modules = self.fresh_modules.len(),
            fresh_roots = self.fresh_roots.len(),
            new_paths = self.paths.len() - self.stored_paths,
            moved,
            relisted,
            "configuration index: what the run learnt"
        );
        self.dropped
            || !self.fresh_modules.is_empty()
            || !self.fresh_roots.is_empty()
            || self.paths.len() != self.stored_paths
            || moved
            || relisted
    }

    /// Stores the index (best effort: a cache that cannot be written costs the next run
    /// its speed, never its result). A fact carried over whose inputs this run saw
    /// changed is dropped; every path takes the stamp this run saw, if it looked; only
    /// the paths the kept facts name are stored, renumbered.
    pub fn save(mut self) {
        if !self.learnt_anything() {
            return;
        }
        self.drop_stale_facts();
        let walked = self.kept_listings();
        self.take_seen_stamps();
        let used = self.used_paths(&walked);
        let (number, paths) = self.renumbered(&used);
        let stored = self.stored(&number, paths, &walked);
        self.cache.write_large(&self.relative, &self.about, &stored);
    }

    /// Drops each fact carried over from the last run whose inputs this run saw changed.
    fn drop_stale_facts(&mut self) {
        let changed = |index: &Index, inputs: &[u32]| !index.none_changed(inputs);
        let stale_modules: Vec<u32> = self
            .modules
            .iter()
            .filter(|(id, m)| !self.fresh_modules.contains(id) && changed(self, &m.inputs))
            .map(|(id, _)| *id)
            .collect();
        for id in stale_modules {
            self.modules.remove(&id);
        }
        let stale_roots: Vec<u32> = self
            .roots
            .iter()
            .filter(|(id, r)| !self.fresh_roots.contains(id) && changed(self, &r.inputs))
            .map(|(id, _)| *id)
            .collect();
        for id in stale_roots {
            self.roots.remove(&id);
        }
    }

    /// The listings to store: this run's walk's, else the last run's of the directories
    /// not seen to change.
    fn kept_listings(&mut self) -> HashMap<u32, Arc<Listing>> {
        match self.new_walked.take() {
            Some(walked) => walked,
            None => {
                let kept: Vec<u32> = self
                    .walked
                    .keys()
                    .copied()
                    .filter(|id| self.changed(*id) != Some(true))
                    .collect();
                kept.into_iter()
                    .filter_map(|id| Some((id, self.walked.get(&id)?.clone())))
                    .collect()
            }
        }
    }

    /// Every path takes the stamp this run saw, where it looked.
    fn take_seen_stamps(&mut self) {
        for (id, seen) in self.seen.iter().enumerate() {
            if let Some(seen) = seen {
                self.paths.stamps[id] = *seen;
            }
        }
    }

    /// By number, whether a kept fact or listing names the path (or one below it).
    fn used_paths(&self, walked: &HashMap<u32, Arc<Listing>>) -> Vec<bool> {
        let mut used = vec![false; self.paths.len()];
        let mark = |id: u32, used: &mut Vec<bool>| {
            let mut id = id;
            while id != TOP && !used[id as usize] {
                used[id as usize] = true;
                id = self.paths.parent[id as usize];
            }
        };
        for id in walked.keys().chain(self.found.iter().flatten()) {
            mark(*id, &mut used);
        }
        for module in self.modules.values() {
            for id in [module.dir]
                .iter()
                .chain(&module.calls)
                .chain(&module.inputs)
            {
                mark(*id, &mut used);
            }
        }
        for root in self.roots.values() {
            for id in [root.dir]
                .iter()
                .chain(&root.modules)
                .chain(&root.value_files)
                .chain(&root.inputs)
            {
                mark(*id, &mut used);
            }
        }
        used
    }

    /// The `used` paths numbered anew in order (a parent before its children): each old
    /// number's new one, and the paths as stored (parent, name, stamp).
    fn renumbered(&self, used: &[bool]) -> (Vec<u32>, Vec<(u32, &str, Stamp)>) {
        let mut number = vec![TOP; self.paths.len()];
        let mut paths = Vec::new();
        for id in 0..self.paths.len() {
            if !used[id] {
                continue;
            }
            number[id] = paths.len() as u32;
            let parent = self.paths.parent[id];
            let text = self.paths.text(id as u32);
            let (parent, name) = if parent == TOP {
                (TOP, text)
            } else {
                let name = Path::new(text)
                    .file_name()
                    .and_then(|n| n.to_str())
                    .unwrap_or_default();
                (number[parent as usize], name)
            };
            paths.push((parent, name, self.paths.stamps[id]));
        }
        (number, paths)
    }

    /// The entry to store: the kept listings and facts, in the new numbers.
    fn stored<'a>(
        &'a self,
        number: &[u32],
        paths: Vec<(u32, &'a str, Stamp)>,
        walked: &HashMap<u32, Arc<Listing>>,
    ) -> Stored<'a> {
        let renumber =
            |ids: &[u32]| -> Vec<u32> { ids.iter().map(|id| number[*id as usize]).collect() };
        let mut walked: Vec<(u32, Listing)> = walked
            .iter()
            .map(|(id, listing)| (number[*id as usize], (**listing).clone()))
            .collect();
        walked.sort_by_key(|(id, _)| *id);
        let mut modules: Vec<ModuleRecord> = self
            .modules
            .values()
            .map(|m| ModuleRecord {
                dir: number[m.dir as usize],
                calls: renumber(&m.calls),
                backend: m.backend,
                loaded: m.loaded,
                inputs: renumber(&m.inputs),
            })
            .collect();
        modules.sort_by_key(|m| m.dir);
        let mut roots: Vec<RootRecord> = self
            .roots
            .values()
            .map(|r| RootRecord {
                dir: number[r.dir as usize],
                complete: r.complete,
                modules: renumber(&r.modules),
                value_files: renumber(&r.value_files),
                evaluated_local: r.evaluated_local,
                inputs: renumber(&r.inputs),
                up_to_date: r.up_to_date.clone(),
            })
            .collect();
        roots.sort_by_key(|r| r.dir);
        Stored {
            format: FORMAT,
            tfsum: TFSUM,
            load: &self.load,
            paths,
            walked,
            modules,
            roots,
            found: self
                .found
                .as_ref()
                .map(|found| found.iter().map(|id| number[*id as usize]).collect()),
        }
    }

    /// Every recorded root's modules and value files (the reverse graph's edges).
    pub fn reach<'a>(&'a self, record: &'a RootRecord) -> (Vec<&'a Path>, Vec<&'a Path>) {
        (
            self.paths_of(&record.modules).collect(),
            self.paths_of(&record.value_files).collect(),
        )
    }

    /// How many paths, module and root facts the index holds (for `-v`).
    pub fn size(&self) -> (usize, usize, usize) {
        (self.paths.len(), self.modules.len(), self.roots.len())
    }

    /// The stamps of this run, by path, for tests.
    #[cfg(test)]
    fn seen_stamp(&self, path: &Path) -> Option<Stamp> {
        self.seen.get(self.id_of(path)? as usize).copied().flatten()
    }
}

/// What the load stage learnt of one root, for [`Index::learn_root`].
pub struct LearntRoot<'a> {
    pub complete: bool,
    pub modules: &'a [PathBuf],
    pub value_files: &'a [PathBuf],
    pub evaluated_local: bool,
    /// The numbers ([`Index::numbers`]) of the files and directories it was read from.
    pub inputs: &'a [u32],
}

/// The listings of an index whose directories were looked at and found unchanged.
pub struct KnownFromIndex<'a> {
    index: &'a Index,
}

impl KnownListings for KnownFromIndex<'_> {
    fn known(&self, dir: &Path) -> Option<Arc<Listing>> {
        let id = self.index.id_of(dir)?;
        if self.index.changed(id) != Some(false) {
            return None;
        }
        self.index.walked.get(&id).cloned()
    }
}

/// A fingerprint of everything besides a root's own files that decides whether its lock
/// file is up to date: the tfsum version, the platforms, the forced flavor, where
/// packages come from and the CLI configuration's parts that choose it.
pub fn run_fingerprint(parts: &BTreeMap<&str, String>) -> String {
    let flat: Vec<String> = parts.iter().map(|(k, v)| format!("{k}={v}")).collect();
    let mut all: Vec<&str> = vec![TFSUM];
    all.extend(flat.iter().map(String::as_str));
    fingerprint(&all)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    fn started() -> SystemTime {
        SystemTime::now()
    }

    /// A stamp taken right after a write is racy and vouches for nothing; one taken
    /// later, with the file's times set back, vouches for an unchanged file only; an
    /// edit with the modification time put back is still seen (the change time moved),
    /// as are a replacement by rename and a removal.
    #[test]
    fn stamps_vouch_only_for_what_they_saw() {
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("main.tf");
        std::fs::write(&file, "a").unwrap();
        let fresh = Stamp::of(&file, started());
        assert!(fresh.is_racy());
        assert!(!fresh.vouches_for(Stamp::of(&file, started())));

        // As seen by a run that began later than RACY after the write.
        let later = SystemTime::now() + RACY + Duration::from_secs(1);
        let old = Stamp::of(&file, later);
        assert!(!old.is_racy());
        assert!(old.vouches_for(Stamp::of(&file, later)));

        let mtime = std::fs::metadata(&file).unwrap().modified().unwrap();
        std::fs::write(&file, "b").unwrap();
        std::fs::File::options()
            .write(true)
            .open(&file)
            .unwrap()
            .set_modified(mtime)
            .unwrap();
        assert!(!old.vouches_for(Stamp::of(&file, later)), "ctime moved");

        let other = tmp.path().join("other.tf");
        std::fs::write(&other, "b").unwrap();
        let before = Stamp::of(&file, later);
        std::fs::rename(&other, &file).unwrap();
        assert!(!before.vouches_for(Stamp::of(&file, later)), "replaced");
        std::fs::remove_file(&file).unwrap();
        let gone = Stamp::of(&file, later);
        assert!(gone.is_absent());
        assert!(!before.vouches_for(gone));
        assert!(gone.vouches_for(Stamp::of(&file, later)));
        assert!(Stamp::of(&tmp.path().join("x/y"), later).is_absent());
        assert!(!Stamp::UNKNOWN.vouches_for(Stamp::UNKNOWN));
    }

    /// Saved and opened again, the index keeps its facts with the stamps seen; another
    /// load fingerprint or a damaged entry is not used, the damage said once.
    #[test]
    fn normal_paths_are_numbered_as_they_are() {
        let cases = [
            ("/", true, true),
            ("/a/b", true, true),
            ("/a//b", true, false),
            ("/a/./b", true, false),
            ("/a/..", true, false),
            ("/a/", true, false),
            ("a/b", true, false),
            ("a/b", false, true),
            ("/a", false, false),
            ("./a", false, false),
            ("a/../b", false, false),
            ("", false, false),
        ];
        for (text, absolute, normal) in cases {
            assert_eq!(is_normal(text, absolute), normal && cfg!(unix), "{text:?}");
        }
        // Numbered from text or from a path, the same paths get the same numbers and
        // the same parents.
        let texts = ["/x/y/z", "/x/w", "/", "/x", "/v"];
        let (mut by_text, mut by_path) = (Paths::default(), Paths::default());
        for text in texts {
            assert_eq!(by_text.id_str(text), by_path.id(Path::new(text)).unwrap());
        }
        assert_eq!(by_text.len(), by_path.len());
        for id in 0..by_text.len() as u32 {
            assert_eq!(by_text.text(id), by_path.text(id));
            assert_eq!(by_text.parent[id as usize], by_path.parent[id as usize]);
        }
    }

    #[test]
    fn round_trip_and_refusal() {
        let tmp = tempfile::tempdir().unwrap();
        let cache = Cache::open(tmp.path().join("cache")).unwrap();
        let repo = tmp.path().join("repo");
        std::fs::create_dir_all(repo.join("a")).unwrap();
        std::fs::write(repo.join("a/main.tf"), "").unwrap();
        let later = SystemTime::now() + RACY + Duration::from_secs(1);
        let scope = scope(std::slice::from_ref(&repo), true, &repo);
        let (mut index, why) = Index::open(&cache, &scope, "L".into(), &repo, later);
        assert_eq!(why, Unusable::Missing);
        assert!(index.is_empty());
        let inputs = vec![repo.join("a"), repo.join("a/main.tf")];
        index.learn_module(Path::new("a"), &[repo.join("b")], true, true, &inputs);
        let input_ids = index.numbers(&inputs).unwrap();
        index.learn_root(
            Path::new("a"),
            LearntRoot {
                complete: true,
                modules: &[repo.join("a")],
                value_files: &[],
                evaluated_local: false,
                inputs: &input_ids,
            },
        );
        index.up_to_date(&repo.join("a"), "R");
        index.save();

        let (mut index, why) = Index::open(&cache, &scope, "L".into(), &repo, later);
        assert_eq!(why, Unusable::Missing);
        assert!(!index.is_empty());
        index.look_at_everything();
        let id = index.id_of(Path::new("a")).unwrap();
        let record = index.root_by_id(id).unwrap().clone();
        assert!(index.root_stands(&record, true));
        assert_eq!(record.up_to_date.as_deref(), Some("R"));
        let (module, calls) = index.module(&repo.join("a"), true).unwrap();
        assert!(module.backend);
        assert_eq!(calls, [repo.join("b")]);
        assert!(index.seen_stamp(&repo.join("a/main.tf")).is_some());

        let (index, _) = Index::open(&cache, &scope, "other".into(), &repo, later);
        assert!(index.is_empty());

        let file = tmp
            .path()
            .join("cache")
            .join(crate::cache::index_file(&scope));
        let bytes = std::fs::read(&file).unwrap();
        std::fs::write(&file, &bytes[..bytes.len() / 2]).unwrap();
        let (index, why) = Index::open(&cache, &scope, "L".into(), &repo, later);
        assert!(index.is_empty());
        assert!(
            matches!(&why, Unusable::Refused { reason, .. } if reason.contains("damaged")),
            "{why:?}"
        );
    }
}
