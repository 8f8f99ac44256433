//! Where packages go: the persistent module cache when there is one, else the run's
//! scratch directory (removed when the fetcher goes).

use std::path::Path;
use std::time::Duration;

use super::super::cache::{PackageKey, StoredPackage};
use super::super::package::Materialized;
use super::super::ModuleError;
use super::ModuleFetcher;

impl ModuleFetcher {
    /// Keeps a package: in the persistent cache when there is one, else in the run's
    /// scratch directory.
    pub(super) fn keep(
        &self,
        key: &PackageKey,
        package: &Materialized,
        base: &str,
    ) -> Result<StoredPackage, ModuleError> {
        let cache_error = |e: std::io::Error| ModuleError::Cache(format!("storing {key}: {e}"));
        if let Some(stored) = self
            .inner
            .cache
            .store(key, package, base)
            .map_err(cache_error)?
        {
            return Ok(stored);
        }
        let dir = self.new_work_dir()?.keep();
        write_package(&dir, package)?;
        Ok(StoredPackage {
            root: dir,
            base: base.to_string(),
        })
    }
}

/// Removes what killed runs left in the staging area (a day old: no run lasts that long,
/// so nothing still in use goes). Best effort.
pub(super) fn remove_stale(staging: &Path) {
    let Ok(entries) = std::fs::read_dir(staging) else {
        return;
    };
    let day = Duration::from_secs(24 * 60 * 60);
    for entry in entries.flatten() {
        let old = entry
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age > day);
        if old {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}
pub(super) fn write_package(dir: &Path, package: &Materialized) -> Result<(), ModuleError> {
    package
        .write_to(dir)
        .map_err(|e| ModuleError::Cache(format!("cannot write {}: {e}", dir.display())))
}
