//! What the last `tfsum lock` run in a directory left behind, for `--retry-failed`.
//!
//! Each run records the outcome of every root it handled in
//! `<cache dir>/v1/runs/<key>.json`, where the key is derived from the absolute working
//! directory: runs from different checkouts (or different directories of one checkout)
//! keep separate records, and the root paths inside, as the report printed them, are
//! meaningful from that directory. `--retry-failed` then passes the failed roots back as
//! explicit paths. The record is replaced by every run, so after a retry it holds only
//! the roots that still fail.
//!
//! The record is written atomically by [`crate::write::replace_file`], like lock files.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::report::RunReport;

/// The record of one run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunState {
    /// The directory the run was started from (to recognise a hash collision, and
    /// for people reading the file).
    pub cwd: PathBuf,
    pub roots: Vec<RootState>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RootState {
    pub dir: PathBuf,
    /// The report word: `created`, `updated`, `unchanged`, `skipped` or `failed`.
    pub outcome: String,
}

impl RunState {
    pub fn from_report(cwd: &Path, report: &RunReport) -> RunState {
        RunState {
            cwd: cwd.to_path_buf(),
            roots: report
                .roots
                .iter()
                .map(|r| RootState {
                    dir: r.dir.clone(),
                    outcome: r.outcome.record_word().to_string(),
                })
                .collect(),
        }
    }

    /// The roots that failed, in the order they were reported.
    pub fn failed(&self) -> Vec<PathBuf> {
        self.roots
            .iter()
            .filter(|r| r.outcome == "failed")
            .map(|r| r.dir.clone())
            .collect()
    }
}

/// Where the record for runs from `cwd` (absolute) lives.
pub fn path(cache_dir: &Path, cwd: &Path) -> PathBuf {
    let digest = Sha256::digest(cwd.as_os_str().as_encoded_bytes());
    let key = hex::encode(&digest[..12]);
    cache_dir.join("v1/runs").join(format!("{key}.json"))
}

/// The saved record, or `None` when there is none for this directory. A record that
/// cannot be read is an error: silently retrying nothing would hide it.
pub fn load(path: &Path, cwd: &Path) -> Result<Option<RunState>, String> {
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("{}: {e}", path.display())),
    };
    let state: RunState = serde_json::from_slice(&bytes)
        .map_err(|e| format!("{}: not a tfsum run record: {e}", path.display()))?;
    Ok((state.cwd == cwd).then_some(state))
}

pub fn save(path: &Path, state: &RunState) -> std::io::Result<()> {
    std::fs::create_dir_all(path.parent().unwrap_or(Path::new(".")))?;
    let bytes = serde_json::to_vec_pretty(state).map_err(std::io::Error::other)?;
    crate::atomic::replace_file(path, &bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_failed_roots() {
        let tmp = tempfile::TempDir::new().unwrap();
        let cwd = Path::new("/work/repo");
        let file = path(tmp.path(), cwd);
        assert_eq!(load(&file, cwd).unwrap(), None);
        let state = RunState {
            cwd: cwd.to_path_buf(),
            roots: vec![
                RootState {
                    dir: "a".into(),
                    outcome: "failed".into(),
                },
                RootState {
                    dir: "b".into(),
                    outcome: "updated".into(),
                },
                RootState {
                    dir: "c".into(),
                    outcome: "failed".into(),
                },
            ],
        };
        save(&file, &state).unwrap();
        let loaded = load(&file, cwd).unwrap().unwrap();
        assert_eq!(loaded, state);
        assert_eq!(loaded.failed(), [PathBuf::from("a"), PathBuf::from("c")]);
        // Another directory has its own record.
        assert_ne!(path(tmp.path(), Path::new("/work/other")), file);
    }

    #[test]
    fn a_corrupt_record_is_an_error() {
        let tmp = tempfile::TempDir::new().unwrap();
        let cwd = Path::new("/x");
        let file = path(tmp.path(), cwd);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, "{").unwrap();
        assert!(load(&file, cwd)
            .unwrap_err()
            .contains("not a tfsum run record"));
    }
}
