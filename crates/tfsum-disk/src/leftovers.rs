//! Temporary entries a kill can leave behind, made so that the next run can tell them
//! apart from a live writer's and remove them.
//!
//! Every file or directory tfsum writes before renaming it into place is named
//! `.tfsum-XXXXXX.tmp` ([`PREFIX`], [`SUFFIX`]) and is *claimed*: its writer holds an
//! exclusive OS lock (`flock`) on it from the moment it exists until it is renamed or
//! removed. The kernel drops that lock when the process ends, however it ends (SIGKILL
//! included), so [`sweep`] removes exactly the entries whose lock it can take: their
//! writer is gone. An entry whose lock is held belongs to a live run (another `tfsum`
//! working on the same tree or directory) and is never touched.
//!
//! The one race, a sweeper locking an entry in the instant between its creation and
//! its writer's lock, is closed on the writer's side: after locking, the writer checks
//! that its path still names the inode it locked and starts again with a new name if not.
//!
//! Where there is no `flock` (Windows), an entry is taken for dead only when it is older
//! than [`UNLOCKED_AGE`].

use std::collections::HashSet;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

/// How every claimed temporary entry's name starts.
pub(crate) const PREFIX: &str = ".tfsum-";
/// How every claimed temporary entry's name ends.
pub(crate) const SUFFIX: &str = ".tmp";

/// Without OS locks, how old an entry must be before it counts as dead.
#[cfg_attr(unix, allow(dead_code))]
pub(crate) const UNLOCKED_AGE: Duration = Duration::from_secs(3600);

/// How often a writer tries a new name after a sweeper removed its entry.
const ATTEMPTS: u32 = 8;

/// Whether `name` is a claimed temporary entry's name.
pub(crate) fn is_temp_name(name: &str) -> bool {
    name.len() > PREFIX.len() + SUFFIX.len() && name.starts_with(PREFIX) && name.ends_with(SUFFIX)
}

/// A temporary directory inside a parent, claimed until it is renamed into place or
/// dropped (dropping removes it).
#[derive(Debug)]
pub struct TempDir {
    dir: tempfile::TempDir,
    /// Holds the claim; `None` where there are no OS locks.
    _claim: Option<File>,
}

impl TempDir {
    /// A new claimed directory in `parent`, which must exist.
    pub fn new_in(parent: &Path) -> io::Result<TempDir> {
        made_and_claimed(parent, "directories", |builder| {
            let dir = builder.tempdir_in(parent)?;
            let claimed = claim(dir.path())?;
            Ok(claimed.map(|claim| TempDir { dir, _claim: claim }))
        })
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Renames the directory to `target`, which must not exist (or be an empty
    /// directory). On failure the directory stays claimed and is handed back.
    pub fn rename_to(self, target: &Path) -> Result<(), (io::Error, TempDir)> {
        match std::fs::rename(self.path(), target) {
            // Renamed away: nothing is left at the temporary path to remove.
            Ok(()) => {
                let _ = self.dir.keep();
                Ok(())
            }
            Err(e) => Err((e, self)),
        }
    }

    /// Puts the directory at `target` in place of what is there now, which is removed.
    /// Where the OS can swap two paths in one step (Linux), `target` is never missing
    /// for a reader; elsewhere it is, for the moment between two renames.
    pub(crate) fn replace(self, target: &Path) -> io::Result<()> {
        let parent = self
            .path()
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default();
        if exchange(self.path(), target)? {
            // The old entry now sits at our temporary path; dropping `self` removes it.
            drop(self);
            return Ok(());
        }
        let aside = TempDir::new_in(&parent)?;
        std::fs::remove_dir(aside.path())?;
        std::fs::rename(target, aside.path())?;
        match self.rename_to(target) {
            Ok(()) => Ok(()),
            Err((e, _)) => Err(e),
        }
        // `aside` (the old entry) is removed when it drops here.
    }
}

/// A temporary file inside a directory, claimed until it is renamed into place or
/// dropped (dropping removes it).
#[derive(Debug)]
pub struct TempFile {
    /// The claim is the lock on this file's own open description.
    file: tempfile::NamedTempFile,
}

impl TempFile {
    /// A new claimed, empty file in `dir`, which must exist.
    pub fn new_in(dir: &Path) -> io::Result<TempFile> {
        made_and_claimed(dir, "files", |builder| {
            let file = builder.tempfile_in(dir)?;
            let claimed = claim_open(file.as_file(), file.path())?;
            Ok(claimed.then_some(TempFile { file }))
        })
    }

    pub fn path(&self) -> &Path {
        self.file.path()
    }

    pub fn as_file(&self) -> &File {
        self.file.as_file()
    }

    pub fn as_file_mut(&mut self) -> &mut File {
        self.file.as_file_mut()
    }

    /// Renames the file over `target` (replacing a file there). On failure the file
    /// stays claimed and is handed back.
    pub fn rename_to(self, target: &Path) -> Result<(), (io::Error, TempFile)> {
        match self.file.persist(target) {
            Ok(_) => Ok(()),
            Err(e) => Err((e.error, TempFile { file: e.file })),
        }
    }
}

/// Makes an entry with tfsum's temporary name in `parent` and claims it; one a sweep
/// removed before it could be claimed is made again, a few times.
fn made_and_claimed<T>(
    parent: &Path,
    what: &str,
    mut attempt: impl FnMut(&tempfile::Builder<'_, '_>) -> io::Result<Option<T>>,
) -> io::Result<T> {
    let mut builder = tempfile::Builder::new();
    builder.prefix(PREFIX).suffix(SUFFIX);
    for _ in 0..ATTEMPTS {
        if let Some(made) = attempt(&builder)? {
            return Ok(made);
        }
    }
    Err(io::Error::other(format!(
        "{}: temporary {what} are removed as soon as they are made",
        parent.display()
    )))
}

/// What [`sweep`] did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Swept {
    /// Dead writers' entries removed.
    pub removed: usize,
    /// Entries left because a live writer holds them.
    pub live: usize,
}

/// Removes the claimed temporary entries directly inside `dir` whose writer is gone (see
/// the module docs). Entries owned by another user and entries a live writer holds are
/// left alone; a directory that cannot be read is swept of nothing.
pub fn sweep(dir: &Path) -> Swept {
    let mut swept = Swept::default();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return swept;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        if !name.to_str().is_some_and(is_temp_name) {
            continue;
        }
        match remove_if_dead(&entry.path()) {
            Ok(true) => swept.removed += 1,
            Ok(false) => swept.live += 1,
            Err(e) => tracing::debug!("{}: not removed: {e}", entry.path().display()),
        }
    }
    swept
}

/// [`sweep`] of `dir`, unless this process swept it already: for writers and readers
/// that meet the same directory many times in a run (the cache's, a lock file's).
pub fn sweep_once(dir: &Path) {
    static SWEPT: Mutex<Option<HashSet<PathBuf>>> = Mutex::new(None);
    let first = {
        let mut swept = SWEPT.lock().unwrap_or_else(|p| p.into_inner());
        swept
            .get_or_insert_with(HashSet::new)
            .insert(dir.to_path_buf())
    };
    if first {
        sweep(dir);
    }
}

/// Claims a fresh entry: `Some(claim)` once `path` is locked and still names the
/// locked inode, `None` when a sweeper removed it first (the caller starts again).
#[cfg(unix)]
fn claim(path: &Path) -> io::Result<Option<Option<File>>> {
    let file = open_no_follow(path)?;
    lock(&file, true)?;
    Ok(same_inode(&file, path)?.then_some(Some(file)))
}

/// [`claim`] for a file already open: locks it and checks `path` still names it.
#[cfg(unix)]
fn claim_open(file: &File, path: &Path) -> io::Result<bool> {
    lock(file, true)?;
    same_inode(file, path)
}

#[cfg(not(unix))]
fn claim_open(_file: &File, _path: &Path) -> io::Result<bool> {
    Ok(true)
}

#[cfg(not(unix))]
fn claim(_path: &Path) -> io::Result<Option<Option<File>>> {
    Ok(Some(None))
}

/// Removes `path` (a file, a link or a whole directory) when its writer is gone: `true`
/// when removed, `false` when a live writer holds it.
#[cfg(unix)]
fn remove_if_dead(path: &Path) -> io::Result<bool> {
    use std::os::unix::fs::MetadataExt as _;
    let meta = std::fs::symlink_metadata(path)?;
    // SAFETY: geteuid has no preconditions and cannot fail.
    let me = unsafe { libc::geteuid() };
    if meta.uid() != me {
        return Ok(false);
    }
    if meta.file_type().is_symlink() {
        // A link was never ours to claim (we make files and directories): remove the
        // link itself, never what it points to.
        std::fs::remove_file(path)?;
        return Ok(true);
    }
    let file = open_no_follow(path)?;
    if !lock(&file, false)? {
        return Ok(false);
    }
    // The writer may have renamed it away and a new entry taken the name meanwhile.
    if !same_inode(&file, path)? {
        return Ok(false);
    }
    remove(path, meta.is_dir())?;
    Ok(true)
}

#[cfg(not(unix))]
fn remove_if_dead(path: &Path) -> io::Result<bool> {
    let meta = std::fs::symlink_metadata(path)?;
    let age = meta.modified()?.elapsed().unwrap_or(Duration::ZERO);
    if age < UNLOCKED_AGE {
        return Ok(false);
    }
    remove(path, meta.is_dir())?;
    Ok(true)
}

fn remove(path: &Path, is_dir: bool) -> io::Result<()> {
    if is_dir {
        std::fs::remove_dir_all(path)
    } else {
        std::fs::remove_file(path)
    }
}

/// Opens a file or directory for locking without following a link at `path`.
#[cfg(unix)]
fn open_no_follow(path: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt as _;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)
}

/// Takes the exclusive lock: waiting for it when `wait`, else `false` when it is held.
#[cfg(unix)]
fn lock(file: &File, wait: bool) -> io::Result<bool> {
    use std::os::fd::AsRawFd as _;
    let op = if wait {
        libc::LOCK_EX
    } else {
        libc::LOCK_EX | libc::LOCK_NB
    };
    loop {
        // SAFETY: the descriptor is open for as long as `file` lives.
        if unsafe { libc::flock(file.as_raw_fd(), op) } == 0 {
            return Ok(true);
        }
        let e = io::Error::last_os_error();
        match e.kind() {
            io::ErrorKind::Interrupted => continue,
            io::ErrorKind::WouldBlock => return Ok(false),
            _ => return Err(e),
        }
    }
}

/// Whether `path` still names the inode `file` has open.
#[cfg(unix)]
fn same_inode(file: &File, path: &Path) -> io::Result<bool> {
    use std::os::unix::fs::MetadataExt as _;
    let held = file.metadata()?;
    match std::fs::symlink_metadata(path) {
        Ok(now) => Ok(now.dev() == held.dev() && now.ino() == held.ino()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(e),
    }
}

/// Swaps two paths in one step where the OS can (Linux `renameat2`); `false` where it
/// cannot, and the caller renames twice.
#[cfg(target_os = "linux")]
fn exchange(a: &Path, b: &Path) -> io::Result<bool> {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt as _;
    let c = |p: &Path| {
        CString::new(p.as_os_str().as_bytes()).map_err(|e| io::Error::other(e.to_string()))
    };
    let (a, b) = (c(a)?, c(b)?);
    // SAFETY: both are valid NUL-terminated paths; the call only reads them.
    let done = unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            a.as_ptr(),
            libc::AT_FDCWD,
            b.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    };
    if done == 0 {
        return Ok(true);
    }
    let e = io::Error::last_os_error();
    match e.raw_os_error() {
        // Old kernels and some file systems cannot exchange: fall back.
        Some(libc::EINVAL) | Some(libc::ENOSYS) => Ok(false),
        _ => Err(e),
    }
}

#[cfg(not(target_os = "linux"))]
fn exchange(_a: &Path, _b: &Path) -> io::Result<bool> {
    Ok(false)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    /// A live writer's directory survives a sweep; once it is dropped without being
    /// renamed it is gone; a dead writer's leftovers (file, directory, link) are removed;
    /// other dot-files stay.
    #[test]
    fn sweep_removes_only_dead_writers_entries() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path();
        let live = TempDir::new_in(dir).unwrap();
        std::fs::write(live.path().join("x"), b"x").unwrap();
        // Leftovers of a killed writer: nobody holds their locks.
        std::fs::write(dir.join(".tfsum-dead01.tmp"), b"half").unwrap();
        std::fs::create_dir(dir.join(".tfsum-dead02.tmp")).unwrap();
        std::fs::write(dir.join(".tfsum-dead02.tmp/f"), b"f").unwrap();
        std::os::unix::fs::symlink("/etc/hostname", dir.join(".tfsum-link.tmp")).unwrap();
        std::fs::write(dir.join(".tfsum-keep"), b"not ours").unwrap();
        std::fs::write(dir.join("main.tf"), b"").unwrap();

        let swept = sweep(dir);
        assert_eq!(
            swept,
            Swept {
                removed: 3,
                live: 1
            }
        );
        let live_name = live
            .path()
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let mut want = vec![".tfsum-keep".to_string(), live_name, "main.tf".into()];
        want.sort();
        assert_eq!(names(dir), want);
        assert!(Path::new("/etc/hostname").exists() || !cfg!(target_os = "linux"));

        drop(live);
        assert_eq!(names(dir), [".tfsum-keep", "main.tf"]);
    }

    /// A lock held by another process counts as live too (flock locks belong to the
    /// open file, so a second open in this process stands in for another process).
    #[test]
    fn a_held_lock_is_never_swept() {
        let root = tempfile::tempdir().unwrap();
        let path = root.path().join(".tfsum-other.tmp");
        std::fs::create_dir(&path).unwrap();
        let other = open_no_follow(&path).unwrap();
        assert!(lock(&other, false).unwrap());
        assert_eq!(
            sweep(root.path()),
            Swept {
                removed: 0,
                live: 1
            }
        );
        drop(other);
        assert_eq!(
            sweep(root.path()),
            Swept {
                removed: 1,
                live: 0
            }
        );
        assert!(!path.exists());
    }

    /// A live writer's file survives a sweep and is removed once it drops; renamed,
    /// it is the target.
    #[test]
    fn claimed_files_live_until_renamed_or_dropped() {
        let root = tempfile::tempdir().unwrap();
        let live = TempFile::new_in(root.path()).unwrap();
        std::io::Write::write_all(&mut live.as_file(), b"new").unwrap();
        assert_eq!(
            sweep(root.path()),
            Swept {
                removed: 0,
                live: 1
            }
        );
        live.rename_to(&root.path().join("f")).unwrap();
        assert_eq!(names(root.path()), ["f"]);
        let dropped = TempFile::new_in(root.path()).unwrap();
        drop(dropped);
        assert_eq!(names(root.path()), ["f"]);
    }

    /// Renamed into place, the directory is no longer a temporary entry; replacing an
    /// existing entry leaves the new content and no temporary entry behind.
    #[test]
    fn rename_and_replace_leave_only_the_target() {
        let root = tempfile::tempdir().unwrap();
        let target = root.path().join("pkg");
        let first = TempDir::new_in(root.path()).unwrap();
        std::fs::write(first.path().join("v"), b"1").unwrap();
        first.rename_to(&target).unwrap();

        let taken = TempDir::new_in(root.path()).unwrap();
        let (e, second) = taken.rename_to(&target).map(|_| ()).unwrap_err();
        assert!(matches!(
            e.raw_os_error(),
            Some(libc::ENOTEMPTY) | Some(libc::EEXIST)
        ));
        std::fs::write(second.path().join("v"), b"2").unwrap();
        second.replace(&target).unwrap();
        assert_eq!(std::fs::read(target.join("v")).unwrap(), b"2");
        assert_eq!(names(root.path()), ["pkg"]);
    }
}
