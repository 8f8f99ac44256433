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

/// The name Terraform and OpenTofu both use (spec §1.1).
pub const LOCK_FILE_NAME: &str = ".terraform.lock.hcl";

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
        atomic_write(path, content.as_bytes()).map_err(|source| WriteError {
            path: path.to_path_buf(),
            source,
        })?;
    }
    Ok(outcome)
}

fn atomic_write(path: &Path, content: &[u8]) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let permissions = std::fs::metadata(path).ok().map(|m| m.permissions());
    let mut tmp = tempfile::Builder::new()
        .prefix(".tfsum-")
        .suffix(".tmp")
        .tempfile_in(dir)?;
    tmp.write_all(content)?;
    tmp.as_file().sync_all()?;
    match permissions {
        Some(p) => tmp.as_file().set_permissions(p)?,
        None => set_new_file_mode(tmp.as_file())?,
    }
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
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
