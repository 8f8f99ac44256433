//! Where packages go: the persistent module cache when there is one, else the run's
//! scratch directory (removed when the fetcher goes).

use std::path::Path;
use std::sync::Arc;

use super::super::cache::{PackageKey, StoredPackage};
use super::super::git::CommitObjects;
use super::super::package::{find_subdir, Materialized, SubdirError};
use super::super::{KeepError, ModuleError};
use super::ModuleFetcher;

impl ModuleFetcher {
    /// Keeps a package: in the persistent cache when there is one (a git commit only
    /// with what proves it), else in the run's scratch directory. A cache that cannot
    /// take it (a damaged entry in the way, a full disk) costs a refetch next run, not
    /// this run.
    pub(super) fn keep(
        &self,
        key: &PackageKey,
        package: &Materialized,
        base: &str,
        proof: Option<&CommitObjects>,
    ) -> Result<StoredPackage, ModuleError> {
        match self.inner.cache.store(key, package, base, proof) {
            Ok(Some(stored)) => return Ok(stored),
            Ok(None) => {}
            Err(e) => self.inner.cache.store_failed(key, &e),
        }
        let dir = self.new_work_dir()?.keep();
        write_package(&dir, package)?;
        Ok(StoredPackage {
            root: dir,
            base: base.to_string(),
        })
    }
}

/// The directory a download location's `//subdir` names inside a stored package, as a
/// `/`-separated path below its root (`""`: the root).
pub(super) fn stored_base(package: &StoredPackage, subdir: &str) -> Result<String, SubdirError> {
    let top = if package.base.is_empty() {
        package.root.clone()
    } else {
        package.root.join(&package.base)
    };
    let dir = find_subdir(&top, subdir)?;
    let relative = dir
        .strip_prefix(&package.root)
        .map_err(|_| SubdirError::Outside(subdir.to_string()))?;
    Ok(relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/"))
}

pub(super) fn write_package(dir: &Path, package: &Materialized) -> Result<(), ModuleError> {
    package.write_to(dir).map_err(|error| {
        ModuleError::Keep(KeepError::Write {
            dir: dir.to_path_buf(),
            error: Arc::new(error),
        })
    })
}
