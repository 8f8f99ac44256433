//! The one directory walker of tfsum: one pass over a tree finds configuration
//! directories, Terragrunt units and lock files, for discovery and for the commands that
//! work on existing lock files (`fmt`, `verify`).
//!
//! Recursive walks skip `.terraform/` (downloaded modules and providers), `.git/` and every
//! other dot-directory, plus anything matching an `--ignore-path` regex. An ignore regex is
//! tried against two spellings of each directory and prunes it when either matches:
//!
//! * the path relative to the given root, with `/` separators (`envs/prod`, `modules/vpc`);
//! * the full path as walked, i.e. the given root joined with the relative path, also with
//!   `/` separators (`./infra/envs/prod` when the root was `./infra`).
//!
//! The given root itself is never ignored: the user named it explicitly.

use std::collections::{BTreeSet, HashMap};
use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;
use regex::Regex;

use crate::leftovers;
use tfsum_vocab::lockfile::LOCK_FILE_NAME;
use tfsum_vocab::paths::{
    is_config_file_name, is_tofu_file_name, normalize_path, slash_path, stack_file_name,
    STACK_DIR_NAME, STACK_FILE_NAME, UNIT_FILE_NAME,
};

/// A problem met while walking that does not stop the walk (an unreadable subdirectory).
/// The directory it names was not searched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiscoverWarning {
    pub path: PathBuf,
    pub message: String,
}

impl fmt::Display for DiscoverWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.message)
    }
}

/// Everything one walk of a tree finds.
#[derive(Debug, Default)]
pub struct Walked {
    /// Directories holding configuration files.
    pub module_dirs: BTreeSet<PathBuf>,
    /// Those of them holding OpenTofu's own (`*.tofu`, `*.tofu.json`), which decide the
    /// flavor of a root without a lock file (spec §10).
    pub tofu_dirs: BTreeSet<PathBuf>,
    /// Directories holding `terragrunt.hcl`.
    pub unit_dirs: BTreeSet<PathBuf>,
    /// Directories holding `terragrunt.stack.hcl`.
    pub stack_dirs: BTreeSet<PathBuf>,
    /// Directories holding a Terraform Stack's configuration (`*.tfcomponent.hcl` and
    /// the other names of [`stack_file_name`]); an entry so named that is no file
    /// counts too, for the stack's loader to refuse.
    pub tf_stack_dirs: BTreeSet<PathBuf>,
    /// `.terraform.lock.hcl` files (following links to files), in walk order.
    pub lock_files: Vec<PathBuf>,
    /// What each directory walked held, by its normalised path, so that reading a module
    /// later need not list its directory again.
    pub listings: Listings,
    pub warnings: Vec<DiscoverWarning>,
}

/// The type of a directory entry as the listing gave it: a link is not followed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum EntryType {
    File,
    Dir,
    Link,
    Other,
}

impl From<std::fs::FileType> for EntryType {
    fn from(file_type: std::fs::FileType) -> EntryType {
        if file_type.is_symlink() {
            EntryType::Link
        } else if file_type.is_dir() {
            EntryType::Dir
        } else if file_type.is_file() {
            EntryType::File
        } else {
            EntryType::Other
        }
    }
}

/// The entries of one directory with a UTF-8 name (no configuration file has another),
/// sorted by name.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Listing {
    entries: Vec<(String, EntryType)>,
    /// The directory also held entries whose names are not UTF-8, left out above: the
    /// listing cannot stand in for the directory in a later walk (a subdirectory so
    /// named would be missed).
    lossy: bool,
}

impl Listing {
    /// Lists `dir` now.
    pub(crate) fn read(dir: &Path) -> std::io::Result<Listing> {
        let mut entries = Vec::new();
        let mut lossy = false;
        for entry in std::fs::read_dir(dir)? {
            let entry = entry?;
            match entry.file_name().into_string() {
                Ok(name) => entries.push((name, entry.file_type()?.into())),
                Err(_) => lossy = true,
            }
        }
        entries.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        Ok(Listing { entries, lossy })
    }

    /// Whether every entry of the directory is here (none had a name that is not UTF-8).
    pub(crate) fn is_whole(&self) -> bool {
        !self.lossy
    }

    /// Each entry's name and type, by name.
    pub fn entries(&self) -> impl Iterator<Item = (&str, EntryType)> {
        self.entries
            .iter()
            .map(|(name, kind)| (name.as_str(), *kind))
    }

    /// The type of the entry `name`, if the directory held one.
    pub fn get(&self, name: &str) -> Option<EntryType> {
        self.entries
            .binary_search_by(|(n, _)| n.as_str().cmp(name))
            .ok()
            .map(|i| self.entries[i].1)
    }
}

/// Directory listings taken by one walk, by normalised path: a run lists each directory
/// once. A directory the walk did not list is listed when asked for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Listings {
    dirs: HashMap<PathBuf, Arc<Listing>>,
}

impl Listings {
    /// What `dir` holds: the walk's listing, or a new one.
    pub fn listing(&self, dir: &Path) -> std::io::Result<Arc<Listing>> {
        match self.dirs.get(&normalize_path(dir)) {
            Some(listing) => Ok(listing.clone()),
            None => Listing::read(dir).map(Arc::new),
        }
    }

    /// Whether `path` is a directory (following a link), from its parent's listing when
    /// the walk took one.
    pub fn is_dir(&self, path: &Path) -> bool {
        let listed = path
            .parent()
            .zip(path.file_name().and_then(|n| n.to_str()))
            .and_then(|(parent, name)| Some((self.dirs.get(&normalize_path(parent))?, name)));
        match listed {
            Some((listing, name)) => match listing.get(name) {
                Some(EntryType::Dir) => true,
                Some(EntryType::Link) => path.is_dir(),
                _ => false,
            },
            None => path.is_dir(),
        }
    }

    /// The walk's listing of `dir`, if it took one.
    pub fn walked(&self, dir: &Path) -> Option<&Listing> {
        self.dirs
            .get(&normalize_path(dir))
            .map(|listing| &**listing)
    }

    pub fn extend(&mut self, other: Listings) {
        self.dirs.extend(other.dirs);
    }

    /// Takes `listing` as the walk's listing of `dir`: one taken earlier and known to
    /// be current ([`KnownListings`]).
    pub fn insert(&mut self, dir: &Path, listing: Arc<Listing>) {
        self.dirs.insert(normalize_path(dir), listing);
    }

    /// Every walked directory and its listing.
    pub fn iter(&self) -> impl Iterator<Item = (&Path, &Arc<Listing>)> {
        self.dirs
            .iter()
            .map(|(dir, listing)| (dir.as_path(), listing))
    }
}

/// Listings a walk may take instead of reading the directory: those of an earlier walk
/// whose directories are known not to have changed since ([`crate::index`]).
pub trait KnownListings: Sync {
    /// The listing of `dir` (as the walk spells it), if it is known to be current.
    fn known(&self, dir: &Path) -> Option<Arc<Listing>>;
}

/// Knows no listing: every directory is read.
struct NoneKnown;

impl KnownListings for NoneKnown {
    fn known(&self, _dir: &Path) -> Option<Arc<Listing>> {
        None
    }
}

/// Walks the tree below `root` once, pruning directories by [`skip_dir`]. Unreadable
/// directories become warnings and are not searched. Links to directories are not
/// followed (which also keeps loops out); the root itself is read through a link.
/// Subdirectories are listed in parallel (on the rayon pool the caller runs in); what is
/// found comes out in the order of a depth-first walk by name.
pub fn walk(root: &Path, ignore: &[Regex]) -> Walked {
    walk_knowing(root, ignore, &NoneKnown)
}

/// [`walk`], taking the listing `known` has for a directory instead of reading it: the
/// same result from fewer system calls when most directories are unchanged.
pub fn walk_knowing(root: &Path, ignore: &[Regex], known: &dyn KnownListings) -> Walked {
    let tree = read_tree(root, root, ignore, known);
    let mut walked = Walked::default();
    tree.flatten(&mut walked);
    walked
}

/// One directory read, with its subdirectories below it.
struct Node {
    path: PathBuf,
    /// Entries by name: their names as given and types; subdirectories carry their node.
    entries: Vec<(OsString, EntryType, Option<Node>)>,
    /// The listing it came from, when it was known rather than read.
    known: Option<Arc<Listing>>,
    error: Option<std::io::Error>,
}

fn read_tree(root: &Path, dir: &Path, ignore: &[Regex], known: &dyn KnownListings) -> Node {
    let listing = known.known(dir).filter(|listing| listing.is_whole());
    let listed = match &listing {
        Some(listing) => Ok(listing
            .entries()
            .map(|(name, kind)| (OsString::from(name), kind))
            .collect()),
        None => read_entries(dir),
    };
    let mut entries = match listed {
        Ok(entries) => entries,
        Err(e) => {
            return Node {
                path: dir.to_path_buf(),
                entries: Vec::new(),
                known: None,
                error: Some(e),
            }
        }
    };
    // What a killed tfsum left here is removed (a live run's is left alone), and neither
    // is part of the tree: no walk reports it, so `git add -A` after a run finds none.
    // (A known listing never holds one: it was taken after the sweep.)
    let is_temp = |name: &OsString| name.to_str().is_some_and(leftovers::is_temp_name);
    if entries.iter().any(|(name, _)| is_temp(name)) {
        leftovers::sweep(dir);
        entries.retain(|(name, _)| !is_temp(name));
    }
    entries.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    // Only subdirectories are tasks: most entries are files, too small to send elsewhere.
    let below: Vec<Node> = entries
        .iter()
        .filter(|(_, kind)| *kind == EntryType::Dir)
        .map(|(name, _)| dir.join(name))
        .filter(|path| !skip_dir(root, path, ignore))
        .collect::<Vec<_>>()
        .into_par_iter()
        .map(|path| read_tree(root, &path, ignore, known))
        .collect();
    let mut below = below.into_iter().peekable();
    let entries = entries
        .into_iter()
        .map(|(name, kind)| {
            let sub = match kind {
                EntryType::Dir => below.next_if(|sub| sub.path.file_name() == Some(&name)),
                _ => None,
            };
            (name, kind, sub)
        })
        .collect();
    Node {
        path: dir.to_path_buf(),
        entries,
        known: listing,
        error: None,
    }
}

/// The entries of `dir` as the operating system lists them.
fn read_entries(dir: &Path) -> std::io::Result<Vec<(OsString, EntryType)>> {
    std::fs::read_dir(dir).and_then(|entries| {
        entries
            .map(|entry| {
                let entry = entry?;
                Ok((entry.file_name(), EntryType::from(entry.file_type()?)))
            })
            .collect::<std::io::Result<Vec<_>>>()
    })
}

impl Node {
    /// Adds what this directory and those below it hold to `walked`, depth first by name.
    fn flatten(self, walked: &mut Walked) {
        if let Some(e) = self.error {
            walked.warnings.push(DiscoverWarning {
                path: self.path,
                message: format!("skipped, cannot read: {e}"),
            });
            return;
        }
        let dir = normalize_path(&self.path);
        let mut listing = Vec::with_capacity(self.entries.len());
        let mut lossy = false;
        let (mut module, mut tofu, mut tf_stack) = (false, false, false);
        for (name, kind, sub) in self.entries {
            if let Some(sub) = sub {
                // In place, so that lock files come in the walk's order.
                sub.flatten(walked);
            }
            let Ok(name) = name.into_string() else {
                lossy = true;
                continue;
            };
            // A symlink to a file counts (Terraform and Terragrunt read through it); a
            // symlink to a directory named `x.tf` does not.
            let is_file = || match kind {
                EntryType::File => true,
                EntryType::Link => self.path.join(&name).is_file(),
                _ => false,
            };
            if is_config_file_name(&name) && is_file() {
                module = true;
                tofu |= is_tofu_file_name(&name);
            } else if name == UNIT_FILE_NAME && is_file() {
                walked.unit_dirs.insert(dir.clone());
            } else if name == STACK_FILE_NAME && is_file() {
                walked.stack_dirs.insert(dir.clone());
            } else if name == LOCK_FILE_NAME && is_file() {
                walked.lock_files.push(self.path.join(&name));
            } else if stack_file_name(&name).is_some() {
                tf_stack = true;
            }
            listing.push((name, kind));
        }
        if module {
            walked.module_dirs.insert(dir.clone());
        }
        if tofu {
            walked.tofu_dirs.insert(dir.clone());
        }
        if tf_stack {
            walked.tf_stack_dirs.insert(dir.clone());
        }
        let listing = match self.known {
            Some(known) => known,
            None => Arc::new(Listing {
                entries: listing,
                lossy,
            }),
        };
        walked.listings.dirs.insert(dir, listing);
    }
}

/// Whether a directory (below the root) is pruned: dot-directories (`.terraform`, `.git`,
/// `.terragrunt-cache`, …) or a match of any ignore regex against the relative or the
/// full path.
fn skip_dir(root: &Path, path: &Path, ignore: &[Regex]) -> bool {
    let hidden = path
        .file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with('.'));
    if hidden {
        return true;
    }
    if ignore.is_empty() {
        return false;
    }
    let relative = path.strip_prefix(root).map(slash_path).unwrap_or_default();
    let full = slash_path(path);
    ignore
        .iter()
        .any(|re| re.is_match(&relative) || re.is_match(&full))
}

/// Whether `dir` directly contains at least one configuration file.
pub fn has_config_files(dir: &Path) -> std::io::Result<bool> {
    Ok(dir_holds(dir)?.config)
}

/// What a directory holds directly, as discovery tells roots apart.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Holds {
    /// A configuration file (`*.tf`, …).
    pub config: bool,
    /// An entry with a Terraform Stack's file name ([`stack_file_name`]).
    pub tf_stack: bool,
}

/// What `dir` directly holds, from one listing.
pub fn dir_holds(dir: &Path) -> std::io::Result<Holds> {
    let mut holds = Holds::default();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        if let Some(name) = entry.file_name().to_str() {
            if is_config_file_name(name) && entry.path().is_file() {
                holds.config = true;
            }
            holds.tf_stack |= stack_file_name(name).is_some();
        }
    }
    Ok(holds)
}

/// A lock file, or a given path that yielded none and why.
pub(crate) type Found = Result<PathBuf, (PathBuf, FindError)>;

/// Why a given path stands for no lock file.
#[derive(Debug, thiserror::Error)]
pub enum FindError {
    #[error("no such file or directory")]
    NotFound,
    #[error("directory has no {LOCK_FILE_NAME} (use -r to search below it)")]
    NoLockFile,
    #[error("no {LOCK_FILE_NAME} found below this directory")]
    NoLockFileBelow,
    #[error("cannot read: {0}")]
    Read(#[source] std::io::Error),
    /// A directory the walk could not enter.
    #[error("{0}")]
    Unreadable(String),
}

/// The lock files one given path stands for (the file itself, a directory's lock file,
/// or with `recursive` every lock file below it), or the reason it stands for none:
/// how `fmt`, `verify` and the merge driver find lock files.
pub fn lock_files(path: &Path, recursive: bool) -> Vec<Found> {
    let metadata = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return vec![Err((path.to_path_buf(), FindError::NotFound))]
        }
        Err(e) => return vec![Err((path.to_path_buf(), FindError::Read(e)))],
    };
    if !metadata.is_dir() {
        return vec![Ok(path.to_path_buf())];
    }
    if !recursive {
        leftovers::sweep(path);
        let file = path.join(LOCK_FILE_NAME);
        return if file.is_file() {
            vec![Ok(file)]
        } else {
            vec![Err((path.to_path_buf(), FindError::NoLockFile))]
        };
    }
    // The walk of discovery: dot-directories (`.terraform/`, `.git/`) hold no lock file
    // the user means to format.
    let walked = walk(path, &[]);
    let mut found: Vec<Found> = walked.lock_files.into_iter().map(Ok).collect();
    // The lock files of the units a Terragrunt stack generates live under its
    // `.terragrunt-stack/`, which the walk skips with the other dot-directories.
    for dir in &walked.stack_dirs {
        found.extend(stack_lock_files(dir).into_iter().map(Ok));
    }
    found.extend(
        walked
            .warnings
            .into_iter()
            .map(|w| Err((w.path, FindError::Unreadable(w.message)))),
    );
    if found.is_empty() {
        found.push(Err((path.to_path_buf(), FindError::NoLockFileBelow)));
    }
    found
}

/// The lock files under a stack directory's `.terragrunt-stack/` (nested stacks' too),
/// sorted; not below `.terraform/` or `.terragrunt-cache/` directories, nor through links.
pub fn stack_lock_files(stack_dir: &Path) -> Vec<PathBuf> {
    let top = stack_dir.join(STACK_DIR_NAME);
    if !top.is_dir() {
        return Vec::new();
    }
    let mut out: Vec<PathBuf> = walkdir::WalkDir::new(&top)
        .follow_links(false)
        .max_depth(64)
        .into_iter()
        .filter_entry(|e| {
            let name = e.file_name().to_string_lossy();
            !(e.file_type().is_dir() && (name == ".terraform" || name == ".terragrunt-cache"))
        })
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file() && e.file_name() == LOCK_FILE_NAME)
        .map(|e| normalize_path(e.path()))
        .collect();
    out.sort();
    out
}

/// The repository holding `start`: the nearest directory at or above it (absolute)
/// that holds `.git` (a directory, or a file for worktrees and submodules).
pub fn repository_root(start: &Path) -> Option<PathBuf> {
    let abs = normalize_path(&std::path::absolute(start).ok()?);
    abs.ancestors()
        .find(|dir| dir.join(".git").exists())
        .map(Path::to_path_buf)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    /// The walk removes what a killed tfsum left (a dead writer's temporary file and
    /// directory), leaves a live writer's alone, and lists neither.
    #[test]
    fn the_walk_sweeps_dead_temporaries_and_lists_none() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("env");
        std::fs::create_dir_all(dir.join(".tfsum-dead02.tmp")).unwrap();
        std::fs::write(dir.join("main.tf"), "").unwrap();
        std::fs::write(dir.join(".tfsum-dead01.tmp"), "half").unwrap();
        let live = leftovers::TempFile::new_in(&dir).unwrap();

        let walked = walk(root.path(), &[]);
        let listing = walked.listings.walked(&normalize_path(&dir)).unwrap();
        let names: Vec<&str> = listing.entries().map(|(name, _)| name).collect();
        assert_eq!(names, ["main.tf"]);
        assert!(!dir.join(".tfsum-dead01.tmp").exists());
        assert!(!dir.join(".tfsum-dead02.tmp").exists());
        assert!(live.path().exists(), "a live writer's file stays");
    }
}
