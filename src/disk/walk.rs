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

use std::collections::BTreeSet;
use std::fmt;
use std::path::{Path, PathBuf};

use regex::Regex;
use walkdir::WalkDir;

use crate::vocab::lockfile::LOCK_FILE_NAME;
use crate::vocab::paths::{
    is_config_file_name, is_tofu_file_name, normalize_path, slash_path, UNIT_FILE_NAME,
};

/// A problem met while walking that does not stop the walk (an unreadable subdirectory, a
/// filesystem loop). The directory it names was not searched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DiscoverWarning {
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
pub(crate) struct Walked {
    /// Directories holding configuration files.
    pub module_dirs: BTreeSet<PathBuf>,
    /// Those of them holding OpenTofu's own (`*.tofu`, `*.tofu.json`), which decide the
    /// flavor of a root without a lock file (spec §10).
    pub tofu_dirs: BTreeSet<PathBuf>,
    /// Directories holding `terragrunt.hcl`.
    pub unit_dirs: BTreeSet<PathBuf>,
    /// `.terraform.lock.hcl` files (following links to files), in walk order.
    pub lock_files: Vec<PathBuf>,
    pub warnings: Vec<DiscoverWarning>,
}

/// Walks the tree below `root` once, pruning directories by [`skip_dir`]. Unreadable
/// directories and link loops become warnings and are not searched.
pub(crate) fn walk(root: &Path, ignore: &[Regex]) -> Walked {
    let walker = WalkDir::new(root)
        .follow_links(false)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|entry| {
            // Only directories are pruned; files are judged by name below.
            entry.depth() == 0
                || !entry.file_type().is_dir()
                || !skip_dir(root, entry.path(), ignore)
        });
    let mut walked = Walked::default();
    // A directory's files come one after another: its path is normalised and inserted
    // once, not once per file (the sets' comparisons were half the walk).
    let mut last_module_dir: Option<PathBuf> = None;
    let mut last_tofu_dir: Option<PathBuf> = None;
    for entry in walker {
        let entry = match entry {
            Ok(entry) => entry,
            Err(err) => {
                let path = err
                    .path()
                    .map(Path::to_path_buf)
                    .unwrap_or_else(|| root.to_path_buf());
                let message = match err.io_error() {
                    Some(io) => format!("skipped, cannot read: {io}"),
                    None => format!("skipped: {err}"),
                };
                walked.warnings.push(DiscoverWarning { path, message });
                continue;
            }
        };
        if entry.file_type().is_dir() {
            continue;
        }
        let Some(name) = entry.file_name().to_str() else {
            continue;
        };
        // A symlink to a file counts (Terraform and Terragrunt read through it); a
        // symlink to a directory named `x.tf` does not.
        let is_file = || entry.file_type().is_file() || entry.path().is_file();
        let Some(parent) = entry.path().parent() else {
            continue;
        };
        if is_config_file_name(name) && is_file() {
            if is_tofu_file_name(name) {
                insert_once(&mut walked.tofu_dirs, &mut last_tofu_dir, parent);
            }
            insert_once(&mut walked.module_dirs, &mut last_module_dir, parent);
        } else if name == UNIT_FILE_NAME && is_file() {
            walked.unit_dirs.insert(normalize_path(parent));
        } else if name == LOCK_FILE_NAME && is_file() {
            walked.lock_files.push(entry.into_path());
        }
    }
    walked
}

/// Inserts `dir` (normalised) into `set`, unless it is `last`, the directory inserted
/// just before.
fn insert_once(set: &mut BTreeSet<PathBuf>, last: &mut Option<PathBuf>, dir: &Path) {
    if last
        .as_ref()
        .is_some_and(|last| last.as_os_str() == dir.as_os_str())
    {
        return;
    }
    set.insert(normalize_path(dir));
    *last = Some(dir.to_path_buf());
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
pub(crate) fn has_config_files(dir: &Path) -> std::io::Result<bool> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        if let Some(name) = entry.file_name().to_str() {
            if is_config_file_name(name) && entry.path().is_file() {
                return Ok(true);
            }
        }
    }
    Ok(false)
}

/// A lock file, or a given path that yielded none and why.
pub(crate) type Found = Result<PathBuf, (PathBuf, FindError)>;

/// Why a given path stands for no lock file.
#[derive(Debug, thiserror::Error)]
pub(crate) enum FindError {
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
pub(crate) fn lock_files(path: &Path, recursive: bool) -> Vec<Found> {
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

/// The repository holding `start`: the nearest directory at or above it (absolute)
/// that holds `.git` (a directory, or a file for worktrees and submodules).
pub(crate) fn repository_root(start: &Path) -> Option<PathBuf> {
    let abs = normalize_path(&std::path::absolute(start).ok()?);
    abs.ancestors()
        .find(|dir| dir.join(".git").exists())
        .map(Path::to_path_buf)
}
