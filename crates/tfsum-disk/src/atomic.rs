//! Replacing files so that nothing is ever half-written, and never through a link that a
//! repository planted.
//!
//! [`replace_file`] writes a temporary file in the same directory (created exclusively,
//! so it cannot be a link, and claimed: [`crate::leftovers`], so that what a kill
//! leaves is removed by the next run that writes there), flushes it to disk, gives it the old file's permissions
//! (0644 for a new file, as Terraform's `AtomicWriteFile`), and renames it over the
//! target. A reader sees the old file or the new one, never a mix; a crash leaves the
//! old one; a rename replaces a symbolic link at the target *itself*, so no write ever
//! lands where a link points. Every replacement holds [`write_guard`]; the binary's
//! signal handler calls [`interrupt`], which marks the process interrupted and takes the
//! same guard, so an interrupt waits for a write under way to finish and no write starts
//! after it.
//!
//! [`replace_files`] does the same for many files at once with one flush of the disk for
//! all their data and one for all their renames, instead of two per file (Linux; elsewhere
//! it syncs file by file): every rename still follows the moment its data is durable.
//!
//! Lock files that are links are written through only by the caller's choice:
//! [`link_target`] says where a link leads and refuses a target outside the tree being
//! worked on (shared lock files symlinked between environments keep working; a link a
//! checkout planted to a file elsewhere does not).

use std::fs::File;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock};
use std::time::Duration;

use rayon::prelude::*;

use crate::leftovers::{self, TempFile};
use tfsum_vocab::paths::normalize_path;

static WRITES: Mutex<()> = Mutex::new(());
static INTERRUPTED: AtomicBool = AtomicBool::new(false);
static TEST_DELAY: OnceLock<Duration> = OnceLock::new();

/// Held for the whole create-temp → write → rename sequence of one file.
pub fn write_guard() -> MutexGuard<'static, ()> {
    // A panic while writing poisons the lock; the guard protects no data, so go on.
    WRITES
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Stops all writing: waits for a replacement under way to finish and returns holding
/// the guard, so no other starts (a writer that got the guard first sees the mark and
/// gives up: a mutex promises no order among waiters). For a signal handler that then
/// exits.
pub fn interrupt() -> MutexGuard<'static, ()> {
    INTERRUPTED.store(true, Ordering::SeqCst);
    write_guard()
}

/// Testing only: pause inside every replacement (after the temporary file is written,
/// before the rename), so a test can interrupt tfsum in the middle of a write.
pub fn set_test_delay(delay: Duration) {
    let _ = TEST_DELAY.set(delay);
}

/// Replaces (or creates) `path` with `contents`, atomically (see the module docs). A
/// symbolic link at `path` is replaced by the new file; its target is not touched.
pub fn replace_file(path: &Path, contents: &[u8]) -> std::io::Result<()> {
    let _guard = write_guard();
    if INTERRUPTED.load(Ordering::SeqCst) {
        return Err(std::io::Error::other("interrupted"));
    }
    replace_holding_guard(path, contents)
}

/// One file of a set [`replace_all`] writes.
#[derive(Debug, Clone)]
pub struct Replacement {
    pub path: PathBuf,
    pub contents: Vec<u8>,
    /// What the file holds now; `None` when it does not exist.
    pub old: Option<Vec<u8>>,
}

/// Why [`replace_all`] wrote nothing; `unrestored` names files it could not put back.
#[derive(Debug, thiserror::Error)]
#[error("{}: {source}{}", path.display(), restore_note(unrestored))]
pub struct ReplaceAllError {
    pub path: PathBuf,
    #[source]
    pub source: std::io::Error,
    pub unrestored: Vec<PathBuf>,
}

fn restore_note(unrestored: &[PathBuf]) -> String {
    if unrestored.is_empty() {
        return "; every file was left as it was".to_string();
    }
    let names: Vec<String> = unrestored.iter().map(|p| p.display().to_string()).collect();
    format!(
        "; these files could not be put back as they were: {}",
        names.join(", ")
    )
}

/// Replaces every file of `files` ([`replace_file`] each), all or none: when one cannot
/// be written, the ones already replaced get their old content back (a file that did not
/// exist is removed). The write guard is held throughout, so an interrupt waits for the
/// whole set.
pub fn replace_all(files: &[Replacement]) -> Result<(), ReplaceAllError> {
    let _guard = write_guard();
    let mut done: Vec<&Replacement> = Vec::new();
    for file in files {
        let written = if INTERRUPTED.load(Ordering::SeqCst) {
            Err(std::io::Error::other("interrupted"))
        } else {
            replace_holding_guard(&file.path, &file.contents)
        };
        if let Err(source) = written {
            let unrestored = done
                .iter()
                .rev()
                .filter(|f| {
                    let restored = match &f.old {
                        Some(old) => replace_holding_guard(&f.path, old),
                        None => std::fs::remove_file(&f.path),
                    };
                    restored.is_err()
                })
                .map(|f| f.path.clone())
                .collect();
            return Err(ReplaceAllError {
                path: file.path.clone(),
                source,
                unrestored,
            });
        }
        done.push(file);
    }
    Ok(())
}

/// [`replace_file`]'s work, for a caller that holds the write guard.
fn replace_holding_guard(path: &Path, contents: &[u8]) -> std::io::Result<()> {
    let staged = Staged::write(path, contents)?;
    staged.tmp.as_file().sync_all()?;
    test_delay();
    staged.tmp.rename_to(path).map_err(|(e, _)| e)?;
    sync_directory(&staged.dir);
    Ok(())
}

/// [`replace_file`] for each of `files`, with the result of each, in order. Below
/// [`BATCH_MIN`] files that is what it does; from there on, all temporary files are
/// written first, made durable together (`syncfs`, once per file system), then renamed,
/// and the renames made durable together. One file's failure does not stop the others.
pub fn replace_files(files: &[(&Path, &[u8])]) -> Vec<std::io::Result<()>> {
    if files.len() < BATCH_MIN || !cfg!(target_os = "linux") {
        return files
            .iter()
            .map(|(path, contents)| replace_file(path, contents))
            .collect();
    }
    let _guard = write_guard();
    if INTERRUPTED.load(Ordering::SeqCst) {
        return files
            .iter()
            .map(|_| Err(std::io::Error::other("interrupted")))
            .collect();
    }
    // Creating files is the kernel's work, in many directories: on every core.
    let mut staged: Vec<std::io::Result<Staged>> = files
        .par_iter()
        .map(|(path, contents)| Staged::write(path, contents))
        .collect();
    sync_together(&mut staged);
    test_delay();
    // Handles on each file system, to make the renames durable after them.
    let file_systems: Vec<File> = one_per_file_system(&staged_files(&staged))
        .into_iter()
        .filter_map(|file| file.try_clone().ok())
        .collect();
    let renamed: Vec<std::io::Result<()>> = staged
        .into_par_iter()
        .zip(files)
        .map(|(staged, (path, _))| staged?.tmp.rename_to(path).map_err(|(e, _)| e))
        .collect();
    // Best effort, as `sync_directory`: each file is complete wherever it is.
    for file in &file_systems {
        let _ = syncfs(file);
    }
    renamed
}

/// Batches smaller than this are synced file by file: a `syncfs` also waits for whatever
/// else the file system has to write, which only pays off over many files.
const BATCH_MIN: usize = 16;

/// A temporary file beside its target, written but not yet synced.
struct Staged {
    tmp: TempFile,
    dir: PathBuf,
}

impl Staged {
    fn write(path: &Path, contents: &[u8]) -> std::io::Result<Staged> {
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        // The permissions of the file being replaced, not of whatever a link points at.
        let permissions = std::fs::symlink_metadata(path)
            .ok()
            .filter(|m| m.is_file())
            .map(|m| m.permissions());
        leftovers::sweep_once(dir);
        let mut tmp = TempFile::new_in(dir).map_err(without_temp_path)?;
        // Through the plain file: the temporary file's own writer would add its path
        // to an error (a full disk), and the caller names the file it replaces.
        tmp.as_file_mut().write_all(contents)?;
        // After writing, so a read-only original (0444) still gets its content first.
        match permissions {
            Some(p) => tmp.as_file().set_permissions(p)?,
            None => set_new_file_mode(tmp.as_file())?,
        }
        Ok(Staged {
            tmp,
            dir: dir.to_path_buf(),
        })
    }
}

/// Makes every staged file's data durable; a file that cannot be is dropped (and so
/// removed) with its error. One `syncfs` per file system, through the first staged file
/// there: it was opened before any of the others were written, so the kernel reports a
/// write-back error of any of them. When one fails, the files there are synced one by
/// one, so the error lands on the file it belongs to.
fn sync_together(staged: &mut [std::io::Result<Staged>]) {
    let failed: Vec<u64> = one_per_file_system(&staged_files(staged))
        .into_iter()
        .filter(|file| syncfs(file).is_err())
        .filter_map(device)
        .collect();
    if failed.is_empty() {
        return;
    }
    for entry in staged.iter_mut() {
        let Ok(s) = entry else { continue };
        let file = s.tmp.as_file();
        if device(file).is_none_or(|dev| failed.contains(&dev)) {
            if let Err(e) = file.sync_all() {
                *entry = Err(e);
            }
        }
    }
}

/// The files staged without error.
fn staged_files(staged: &[std::io::Result<Staged>]) -> Vec<&File> {
    staged
        .iter()
        .filter_map(|s| s.as_ref().ok())
        .map(|s| s.tmp.as_file())
        .collect()
}

/// The first of `files` on each file system.
fn one_per_file_system<'f>(files: &[&'f File]) -> Vec<&'f File> {
    let mut seen = Vec::new();
    let mut firsts = Vec::new();
    for file in files {
        match device(file) {
            Some(dev) if seen.contains(&dev) => {}
            Some(dev) => {
                seen.push(dev);
                firsts.push(*file);
            }
            // Unknown: synced on its own.
            None => firsts.push(*file),
        }
    }
    firsts
}

#[cfg(unix)]
fn device(file: &File) -> Option<u64> {
    use std::os::unix::fs::MetadataExt as _;
    file.metadata().ok().map(|m| m.dev())
}

#[cfg(not(unix))]
fn device(_file: &File) -> Option<u64> {
    None
}

/// Writes out everything of the file system holding `file` and waits for it; errors
/// met writing back any file opened after `file` was (Linux 5.8 and later).
#[cfg(target_os = "linux")]
fn syncfs(file: &File) -> std::io::Result<()> {
    use std::os::fd::AsRawFd as _;
    // SAFETY: the descriptor is open for as long as `file` is borrowed.
    if unsafe { libc::syncfs(file.as_raw_fd()) } == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

#[cfg(not(target_os = "linux"))]
fn syncfs(file: &File) -> std::io::Result<()> {
    file.sync_all()
}

fn test_delay() {
    if let Some(delay) = TEST_DELAY.get().filter(|d| !d.is_zero()) {
        std::thread::sleep(*delay);
    }
}

/// The error of creating the temporary file, without the temporary file's name (a name
/// the user never chose and cannot find afterwards): the caller names the file it was
/// replacing. The `tempfile` crate appends ` at path "…"` to the operating system's
/// message and keeps the original error private.
fn without_temp_path(error: std::io::Error) -> std::io::Error {
    let message = error.to_string();
    match message.split_once(" at path ") {
        Some((cause, _)) => std::io::Error::new(error.kind(), cause.to_string()),
        None => error,
    }
}

/// A link whose target lies outside the tree being worked on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{} is a symbolic link to {}, outside the tree tfsum works on ({}); tfsum does not write through it", link.display(), target.display(), trees)]
pub struct LinkEscape {
    pub link: PathBuf,
    /// Where the link leads (as far as it could be resolved).
    pub target: PathBuf,
    /// The trees, for the message.
    pub trees: String,
}

/// The trees a lock file that is a link may lead into (canonical): the given paths (a
/// file's directory) and the repository holding the working directory.
pub fn link_trees(paths: &[PathBuf]) -> Vec<PathBuf> {
    let repository = crate::walk::repository_root(Path::new("."));
    paths
        .iter()
        .map(|p| match p.parent() {
            Some(parent) if p.is_file() => parent,
            _ => p.as_path(),
        })
        .chain(repository.as_deref())
        .filter_map(|p| std::fs::canonicalize(p).ok())
        .collect()
}

/// Where a write to `path` should land: `path` itself when it is not a symbolic link (or
/// does not exist), else the link's final target when that lies inside one of `within`
/// (canonical directories). A link leading elsewhere, or nowhere, is refused.
pub fn link_target(path: &Path, within: &[PathBuf]) -> Result<PathBuf, LinkEscape> {
    let is_link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    if !is_link {
        return Ok(path.to_path_buf());
    }
    let escape = |target: PathBuf| LinkEscape {
        link: path.to_path_buf(),
        target,
        trees: within
            .iter()
            .map(|d| d.display().to_string())
            .collect::<Vec<_>>()
            .join(", "),
    };
    match std::fs::canonicalize(path) {
        Ok(target) if within.iter().any(|root| target.starts_with(root)) => Ok(target),
        Ok(target) => Err(escape(target)),
        Err(_) => Err(escape(
            std::fs::read_link(path).unwrap_or_else(|_| path.to_path_buf()),
        )),
    }
}

/// Creates `dir` and every directory between it and `base` (which holds it lexically),
/// refusing a link or a file on the way: a repository cannot make tfsum create
/// directories, or write, outside its tree through a link it planted (the generated
/// directories of a Terragrunt stack, where a unit's lock file goes before `stack
/// generate` ever ran).
pub fn make_dirs_below(base: &Path, dir: &Path) -> std::io::Result<()> {
    let base = normalize_path(base);
    let dir = normalize_path(dir);
    let Ok(rest) = dir.strip_prefix(&base) else {
        return Err(std::io::Error::other(format!(
            "{} is not below {}",
            dir.display(),
            base.display()
        )));
    };
    let mut at = base.clone();
    for part in rest.components() {
        at.push(part);
        match std::fs::symlink_metadata(&at) {
            Ok(meta) if meta.file_type().is_symlink() => {
                return Err(std::io::Error::other(format!(
                    "{} is a link; tfsum creates no lock file through one",
                    at.display()
                )))
            }
            Ok(meta) if meta.is_dir() => {}
            Ok(_) => {
                return Err(std::io::Error::other(format!(
                    "{} is not a directory",
                    at.display()
                )))
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                match std::fs::create_dir(&at) {
                    Ok(()) => {}
                    // Another run made it meanwhile.
                    Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && at.is_dir() => {}
                    Err(e) => return Err(e),
                }
            }
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Makes the rename itself durable. Best effort: the file is already complete and in
/// place, and some file systems refuse to fsync a directory.
fn sync_directory(dir: &Path) {
    #[cfg(unix)]
    if let Ok(handle) = std::fs::File::open(dir) {
        let _ = handle.sync_all();
    }
    #[cfg(not(unix))]
    let _ = dir;
}

#[cfg(unix)]
fn set_new_file_mode(file: &std::fs::File) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt as _;
    file.set_permissions(std::fs::Permissions::from_mode(0o644))
}

#[cfg(not(unix))]
fn set_new_file_mode(_file: &std::fs::File) -> std::io::Result<()> {
    Ok(())
}

#[cfg(all(test, unix))]
mod tests {
    #[test]
    fn a_directory_that_cannot_take_the_file_is_named_not_the_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("missing/.terraform.lock.hcl");
        let err = replace_file(&target, b"x").unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::NotFound);
        assert!(!err.to_string().contains(".tfsum-"), "{err}");
    }

    use super::*;
    use std::os::unix::fs::{symlink, PermissionsExt as _};

    #[test]
    fn replaces_keeping_the_mode_and_leaving_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        replace_file(&path, b"a\n").unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&path), 0o644);
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        replace_file(&path, b"b\n").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "b\n");
        assert_eq!(mode(&path), 0o600);
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["f"]);
    }

    /// A batch large enough to be synced together writes every file it can, keeps each
    /// mode, fails only the file whose directory is missing, and leaves no temporary file.
    #[test]
    fn replaces_a_batch_and_fails_only_the_file_that_cannot_be_written() {
        let dir = tempfile::tempdir().unwrap();
        let paths: Vec<PathBuf> = (0..BATCH_MIN + 4)
            .map(|i| dir.path().join(format!("r{i}/lock")))
            .collect();
        for path in &paths[1..] {
            std::fs::create_dir(path.parent().unwrap()).unwrap();
        }
        std::fs::write(&paths[2], "old").unwrap();
        std::fs::set_permissions(&paths[2], std::fs::Permissions::from_mode(0o600)).unwrap();
        let contents: Vec<String> = (0..paths.len()).map(|i| format!("new {i}\n")).collect();
        let files: Vec<(&Path, &[u8])> = paths
            .iter()
            .zip(&contents)
            .map(|(p, c)| (p.as_path(), c.as_bytes()))
            .collect();
        let results = replace_files(&files);
        assert_eq!(results.len(), paths.len());
        let err = results[0].as_ref().unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::NotFound);
        for (i, path) in paths.iter().enumerate().skip(1) {
            assert!(results[i].is_ok(), "{i}: {:?}", results[i]);
            assert_eq!(std::fs::read_to_string(path).unwrap(), contents[i]);
            let names: Vec<_> = std::fs::read_dir(path.parent().unwrap())
                .unwrap()
                .map(|e| e.unwrap().file_name())
                .collect();
            assert_eq!(names, ["lock"], "{i}");
        }
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&paths[2]), 0o600);
        assert_eq!(mode(&paths[3]), 0o644);
    }

    /// A link at the path is replaced; what it points at is not written.
    #[test]
    fn never_writes_through_a_link() {
        let dir = tempfile::tempdir().unwrap();
        let outside = dir.path().join("outside");
        std::fs::write(&outside, "precious").unwrap();
        let link = dir.path().join("entry.json");
        symlink(&outside, &link).unwrap();
        replace_file(&link, b"{}").unwrap();
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), "precious");
        assert!(!std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read_to_string(&link).unwrap(), "{}");
    }

    /// A set of replacements is all or none: when a later file cannot be written, the
    /// earlier ones get their old content back and a new one is removed.
    #[test]
    fn replace_all_puts_everything_back_on_failure() {
        let dir = tempfile::tempdir().unwrap();
        let existing = dir.path().join("a.tf");
        std::fs::write(&existing, "old\n").unwrap();
        let created = dir.path().join("b.hcl");
        let unwritable = dir.path().join("missing-dir").join("c.tf");
        let files = [
            Replacement {
                path: existing.clone(),
                contents: b"new\n".to_vec(),
                old: Some(b"old\n".to_vec()),
            },
            Replacement {
                path: created.clone(),
                contents: b"new\n".to_vec(),
                old: None,
            },
            Replacement {
                path: unwritable.clone(),
                contents: b"new\n".to_vec(),
                old: None,
            },
        ];
        let err = replace_all(&files).unwrap_err();
        assert_eq!(err.path, unwritable);
        assert!(err.unrestored.is_empty());
        assert!(
            err.to_string().contains("every file was left as it was"),
            "{err}"
        );
        assert_eq!(std::fs::read_to_string(&existing).unwrap(), "old\n");
        assert!(!created.exists());
        replace_all(&files[..2]).unwrap();
        assert_eq!(std::fs::read_to_string(&created).unwrap(), "new\n");
    }

    #[test]
    fn link_targets_inside_the_tree_only() {
        let tmp = tempfile::tempdir().unwrap();
        let tmp = std::fs::canonicalize(tmp.path()).unwrap();
        let tree = tmp.join("repo");
        std::fs::create_dir_all(tree.join("shared")).unwrap();
        std::fs::write(tree.join("shared/lock"), "").unwrap();
        std::fs::write(tmp.join("elsewhere"), "").unwrap();
        symlink(tree.join("shared/lock"), tree.join("inside")).unwrap();
        symlink(tmp.join("elsewhere"), tree.join("outside")).unwrap();
        symlink(tmp.join("missing"), tree.join("dangling")).unwrap();
        let within = [tree.clone()];
        assert_eq!(
            link_target(&tree.join("plain"), &within),
            Ok(tree.join("plain"))
        );
        assert_eq!(
            link_target(&tree.join("inside"), &within),
            Ok(tree.join("shared/lock"))
        );
        let err = link_target(&tree.join("outside"), &within).unwrap_err();
        assert_eq!(err.target, tmp.join("elsewhere"));
        assert!(
            err.to_string().contains("does not write through it"),
            "{err}"
        );
        assert_eq!(
            link_target(&tree.join("dangling"), &within)
                .unwrap_err()
                .target,
            tmp.join("missing")
        );
    }
}
