//! Progress events: how the pipeline tells a front end what it is doing, without
//! knowing whether that is a terminal progress bar, plain log lines or nothing.

use std::path::Path;

/// Receives events from the pipeline. Every method has an empty default, so a front
/// end implements only what it shows. Implementations must be cheap: they are called
/// from download loops.
pub trait Progress: Send + Sync {
    /// A package download begins; `total` is the Content-Length when known.
    fn download_started(&self, _package: &str, _total: Option<u64>) {}
    /// `bytes` more bytes of the package arrived.
    fn download_progress(&self, _package: &str, _bytes: u64) {}
    /// The package was downloaded and hashed (or failed: `ok` is false).
    fn download_finished(&self, _package: &str, _ok: bool) {}
    /// A package's hashes were all found in the cache.
    fn cache_hit(&self, _package: &str) {}
    /// A root module's lock file was handled; `outcome` is its report word.
    fn root_done(&self, _dir: &Path, _outcome: &str) {}
}

/// Shows nothing.
pub struct NoProgress;

impl Progress for NoProgress {}
