//! Packages downloaded for hashing and kept for installing: with `tfsum lock --mirror`,
//! the registry source writes each zip it downloads (and verifies) to a claimed file in
//! the provider directory's staging area, so the install stage unpacks it instead of
//! fetching it again. What nobody takes is removed when the run drops it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tfsum_disk::leftovers::TempFile;
use tfsum_disk::provider_dir::ProviderDir;
use tfsum_vocab::addr::{Platform, ProviderAddr};
use tfsum_vocab::version::Version;

/// One platform's package.
type Key = (ProviderAddr, Version, Platform);

/// Verified zips waiting for the install stage.
#[derive(Debug)]
pub struct KeptPackages {
    dir: Arc<ProviderDir>,
    zips: Mutex<HashMap<Key, TempFile>>,
}

impl KeptPackages {
    pub fn new(dir: Arc<ProviderDir>) -> KeptPackages {
        KeptPackages {
            dir,
            zips: Mutex::default(),
        }
    }

    /// A claimed file to download into; [`KeptPackages::put`] it once verified.
    pub(crate) fn staging_file(&self) -> std::io::Result<TempFile> {
        self.dir.staging_file()
    }

    /// Keeps a verified zip for (`provider`, `version`, `platform`).
    pub(crate) fn put(
        &self,
        provider: &ProviderAddr,
        version: &Version,
        platform: &Platform,
        zip: TempFile,
    ) {
        let key = (provider.clone(), version.clone(), platform.clone());
        self.lock().insert(key, zip);
    }

    /// The zip kept for (`provider`, `version`, `platform`), if this run downloaded it.
    pub fn take(
        &self,
        provider: &ProviderAddr,
        version: &Version,
        platform: &Platform,
    ) -> Option<TempFile> {
        let key = (provider.clone(), version.clone(), platform.clone());
        self.lock().remove(&key)
    }

    /// Drops every zip nobody took (their files are removed).
    pub fn clear(&self) {
        self.lock().clear();
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Key, TempFile>> {
        self.zips.lock().unwrap_or_else(|p| p.into_inner())
    }
}
