//! What the last `tfsum lock` run in a directory left behind, for `--retry-failed`.
//!
//! Each run records the outcome of every root it handled in the cache directory
//! ([`tfsum_disk::cache::run_record`]), keyed by the absolute working directory: runs from
//! different checkouts (or different directories of one checkout) keep separate records,
//! and the root paths inside, as the report printed them, are meaningful from that
//! directory. `--retry-failed` then passes the failed roots back as explicit paths. The
//! record is replaced by every run, so after a retry it holds only the roots that still
//! fail. It is read and written through the cache's own checks, like every cache file.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::RunReport;
use tfsum_disk::cache::{self, Cache};

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
    /// The report word: `created`, `updated`, `unchanged` or `failed`.
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

/// Where the record for runs from `cwd` lives, for messages.
pub fn path(cache: &Cache, cwd: &Path) -> PathBuf {
    let record = cache::run_record(cwd);
    match cache.root() {
        Some(root) => root.join(record),
        None => record,
    }
}

/// A run record that is there but cannot be read back.
#[derive(Debug, thiserror::Error)]
#[error("{}: not a tfsum run record: {error}", file.display())]
pub struct RecordError {
    pub file: PathBuf,
    pub error: serde_json::Error,
}

/// The saved record, or `None` when there is none for this directory. A record that
/// cannot be parsed is an error: silently retrying nothing would hide it.
pub fn load(cache: &Cache, cwd: &Path) -> Result<Option<RunState>, RecordError> {
    let Some(bytes) = cache.read_file(&cache::run_record(cwd)) else {
        return Ok(None);
    };
    let state: RunState = serde_json::from_slice(&bytes).map_err(|error| RecordError {
        file: path(cache, cwd),
        error,
    })?;
    Ok((state.cwd == cwd).then_some(state))
}

pub fn save(cache: &Cache, state: &RunState) -> std::io::Result<()> {
    let bytes = serde_json::to_vec_pretty(state).map_err(std::io::Error::other)?;
    cache.write_file(&cache::run_record(&state.cwd), &bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_failed_roots() {
        let tmp = tempfile::TempDir::new().unwrap();
        let cache = Cache::open(tmp.path().join("cache")).unwrap();
        let cwd = Path::new("/work/repo");
        assert_eq!(load(&cache, cwd).unwrap(), None);
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
        save(&cache, &state).unwrap();
        let loaded = load(&cache, cwd).unwrap().unwrap();
        assert_eq!(loaded, state);
        assert_eq!(loaded.failed(), [PathBuf::from("a"), PathBuf::from("c")]);
        // Another directory has its own record, and a cache without facts still keeps it.
        assert_ne!(path(&cache, Path::new("/work/other")), path(&cache, cwd));
        assert_eq!(
            load(&cache.clone().without_facts(), cwd).unwrap(),
            Some(state)
        );
    }

    #[test]
    fn a_corrupt_record_is_an_error() {
        let tmp = tempfile::TempDir::new().unwrap();
        let cache = Cache::open(tmp.path().to_path_buf()).unwrap();
        let cwd = Path::new("/x");
        cache.write_file(&cache::run_record(cwd), b"{").unwrap();
        assert!(load(&cache, cwd)
            .unwrap_err()
            .to_string()
            .contains("not a tfsum run record"));
    }
}
