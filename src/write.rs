//! Writing lock files: compare the rendered bytes with what is on disk and replace the
//! file atomically only when they differ.
//!
//! The new content goes to a temporary file in the same directory, is flushed to disk,
//! gets the old file's permissions (0644 for a new file, as Terraform's
//! `AtomicWriteFile` uses), and is renamed over the old one. A reader therefore always
//! sees either the old or the new file, never a mix, and an interrupted run leaves at
//! most a `.tfsum-*` temporary file that the temp-file guard removes on drop.

use std::io::Write as _;
use std::path::{Path, PathBuf};

pub use crate::lockfile::LOCK_FILE_NAME;

/// What happened to one root's lock file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteOutcome {
    Created,
    Updated,
    Unchanged,
}

impl WriteOutcome {
    pub fn as_str(self) -> &'static str {
        match self {
            WriteOutcome::Created => "created",
            WriteOutcome::Updated => "updated",
            WriteOutcome::Unchanged => "unchanged",
        }
    }
}

#[derive(Debug, thiserror::Error)]
#[error("{path}: {source}")]
pub struct WriteError {
    pub path: PathBuf,
    #[source]
    pub source: std::io::Error,
}

/// What a write would do, without writing: for `--check`-style callers.
pub fn compare(old: Option<&[u8]>, new: &str) -> WriteOutcome {
    match old {
        None => WriteOutcome::Created,
        Some(old) if old == new.as_bytes() => WriteOutcome::Unchanged,
        Some(_) => WriteOutcome::Updated,
    }
}

/// Writes `content` to `path` if it differs from `old` (the current bytes, if any).
pub fn write_if_changed(
    path: &Path,
    old: Option<&[u8]>,
    content: &str,
) -> Result<WriteOutcome, WriteError> {
    let outcome = compare(old, content);
    if outcome != WriteOutcome::Unchanged {
        replace_file(path, content.as_bytes()).map_err(|source| WriteError {
            path: path.to_path_buf(),
            source,
        })?;
    }
    Ok(outcome)
}

/// Replaces (or creates) `path` with `contents` so that a reader sees the old file or
/// the new one, never a mix, and a crash leaves the old one: a temporary file in the
/// same directory (a rename is only atomic within one file system), written, given the
/// old file's permissions (0644 for a new file, as Terraform's `AtomicWriteFile`),
/// fsynced, then renamed over the original, all under the interrupt guard. A symlink
/// is resolved first, so its target is replaced and the link stays a link.
pub fn replace_file(path: &Path, contents: &[u8]) -> std::io::Result<()> {
    let _guard = crate::interrupt::write_guard();
    let target = match std::fs::canonicalize(path) {
        Ok(target) => target,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => path.to_path_buf(),
        Err(e) => return Err(e),
    };
    let dir = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let permissions = std::fs::metadata(&target).ok().map(|m| m.permissions());
    let mut tmp = tempfile::Builder::new()
        .prefix(".tfsum-")
        .suffix(".tmp")
        .tempfile_in(dir)?;
    tmp.write_all(contents)?;
    // After writing, so a read-only original (0444) still gets its content first.
    match permissions {
        Some(p) => tmp.as_file().set_permissions(p)?,
        None => set_new_file_mode(tmp.as_file())?,
    }
    tmp.as_file().sync_all()?;
    tmp.persist(&target).map_err(|e| e.error)?;
    sync_directory(dir);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_only_changes_and_keeps_mode() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(LOCK_FILE_NAME);
        assert_eq!(
            write_if_changed(&path, None, "a\n").unwrap(),
            WriteOutcome::Created
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o644);
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        }
        let old = std::fs::read(&path).unwrap();
        assert_eq!(
            write_if_changed(&path, Some(&old), "a\n").unwrap(),
            WriteOutcome::Unchanged
        );
        assert_eq!(
            write_if_changed(&path, Some(&old), "b\n").unwrap(),
            WriteOutcome::Updated
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "b\n");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600);
        }
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, [LOCK_FILE_NAME]);
    }
}
