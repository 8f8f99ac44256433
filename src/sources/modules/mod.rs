//! Remote modules as a package source: getting the code a `module` call names, once.
//!
//! The load stage follows module calls to gather provider requirements. Local calls are
//! directories next to the caller; remote ones (registry, git, archives) are fetched
//! here, as `terraform init` would fetch them, but at most once per run and, when the
//! identity is immutable, once ever (docs/spec/modules.md has the protocol facts). The
//! grammar they start from is the vocabulary's: source addresses (Terraform 1.0.3's
//! rules and Terragrunt's `tfr://`) in [`crate::vocab::module_source`], module versions
//! and the installer's version choice in [`crate::vocab::goversion`].
//!
//! - [`fetcher`] is the [`ModuleFetcher`]: dispatch by source kind, the shared download
//!   semaphore, `--offline` and statistics in `fetcher/mod.rs`; the per-run memo
//!   (`memo.rs`), registry modules (`registry.rs`, through
//!   [`crate::net::registry::RegistryClient`]), git sources (`from_git.rs`), http(s)
//!   archives and `X-Terraform-Get` pages (`http.rs`, through [`crate::net::http::Http`]),
//!   and where packages are kept (`store.rs`).
//! - [`git`] asks a repository for refs, a shallow fetch and the configuration files of
//!   a commit, through the runner of [`crate::net::git`]; [`archive`] reads archives;
//!   [`package`] checks what they contain (no escapes) and keeps only configuration files.
//! - [`cache`] is the module namespace of the one persistent cache
//!   ([`crate::disk::cache::Cache`]); [`git_objects`] checks cached git packages against
//!   their commit id.
//! - whether an existing `.terraform/modules/modules.json` entry still stands for a
//!   call, as `init` without `-upgrade` decides, is [`crate::config::manifest`]'s.
//!
//! A fetched package is a directory of configuration files; a caller loads it like any
//! module directory. Local calls inside it resolve with [`resolve_in_package`], which
//! refuses paths that leave the package.

pub(crate) mod archive;
pub(crate) mod cache;
pub(crate) mod fetcher;
pub(crate) mod git;
pub(crate) mod git_objects;
pub(crate) mod package;

pub(crate) use archive::ArchiveLimits;
pub use fetcher::{FetchedModule, FetcherOptions, ModuleFetcher, ModuleStats};
pub use package::resolve_in_package;

use crate::net::registry::RegistryError;
use crate::vocab::module_source::{redacted_source, SourceError};

/// Why a module source could not be fetched. Each message names the source (or the URL
/// or registry module it led to) and the cause; the caller adds the module call and its
/// file:line. Sources and URLs are shown through [`redacted_source`].
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ModuleError {
    #[error(transparent)]
    Source(#[from] SourceError),

    /// Local paths are not fetched: the caller joins them to the calling module.
    #[error("{0:?} is a local path, not a remote module")]
    NotRemote(String),

    #[error("module source {:?} needs the {getter} getter, which tfsum does not implement; run `terraform init` so that .terraform/modules/modules.json maps this call", redacted_source(source_str))]
    Unsupported { getter: String, source_str: String },

    /// Terraform 1.0.3: "Cannot apply a version constraint to module … because it has
    /// a non Registry URL."
    #[error("cannot apply a version constraint to module source {:?} because it is not a module registry address", redacted_source(source_str))]
    VersionOnNonRegistry { source_str: String },

    #[error(
        "host {host} does not offer a module registry (its service discovery has no modules.v1)"
    )]
    NoModuleRegistry { host: String },

    #[error("module {module} cannot be found in the module registry at {host}")]
    ModuleNotFound { module: String, host: String },

    #[error("module {module}: {reason}")]
    Version { module: String, reason: String },

    #[error("module {module}: {error}")]
    Registry {
        module: String,
        error: RegistryError,
    },

    #[error("module registry {host} returned an invalid source location {:?} for {module} v{version}: {reason}", redacted_source(location))]
    BadLocation {
        host: String,
        module: String,
        version: String,
        location: String,
        reason: String,
    },

    #[error("module source {}: {reason}", redacted_source(source_str))]
    Git { source_str: String, reason: String },

    #[error("downloading module package {}: {reason}", redacted_source(url))]
    Download { url: String, reason: String },

    #[error("module package {}: {reason}", redacted_source(url))]
    Package { url: String, reason: String },

    #[error("{what} is not in the module cache, and --offline forbids fetching it")]
    Offline { what: String },

    #[error("module cache: {0}")]
    Cache(String),

    #[error("{0}")]
    Setup(String),
}

impl ModuleError {
    /// Whether the error only says that `--offline` kept tfsum from fetching.
    pub fn is_offline_miss(&self) -> bool {
        matches!(self, ModuleError::Offline { .. })
    }
}
