//! Why a remote module could not be had: [`ModuleError`] names the source (or the URL or
//! registry module it led to) and keeps what went wrong as a value: the registry's,
//! git's or the download's own error, or what was wrong with the package. Text is made
//! only when the error is printed.

use std::path::PathBuf;
use std::sync::Arc;

use crate::oci::artifact::Broken;
use tfsum_net::download::DownloadError;
use tfsum_net::git::GitError;
use tfsum_net::oci::{CredentialsError, NameError, OciError};
use tfsum_net::registry::RegistryError;
use tfsum_vocab::goversion::SelectError;
use tfsum_vocab::module_source::{redacted_source, SourceError};

use super::archive::ArchiveError;
use super::package::{ContentError, SubdirError};

/// Why a module source could not be fetched. Each message names the source (or the URL
/// or registry module it led to) and the cause; the caller adds the module call and its
/// file:line. Sources and URLs are shown through [`redacted_source`].
#[derive(Debug, Clone, thiserror::Error)]
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

    /// OpenTofu's words for an `oci://` source with a `version` (v1.12.6
    /// `internal/initwd/module_install.go:861-870`).
    #[error("cannot apply a version constraint to module source {:?} because it doesn't come from a module registry", redacted_source(source_str))]
    VersionOnOci { source_str: String },

    /// An `oci://` module package could not be had.
    #[error("module source {}: {error}", redacted_source(source_str))]
    Oci {
        source_str: String,
        #[source]
        error: OciModuleError,
    },

    #[error(
        "host {host} does not offer a module registry (its service discovery has no modules.v1)"
    )]
    NoModuleRegistry { host: String },

    #[error("module {module} cannot be found in the module registry at {host}")]
    ModuleNotFound { module: String, host: String },

    /// No version the registry lists is allowed, or the constraint does not parse.
    #[error("module {module}: {error}")]
    Version {
        module: String,
        #[source]
        error: SelectError,
    },

    /// The registry lists the version but has no download location for it.
    #[error("module {module}: the registry has no download for version {version}")]
    NoDownload { module: String, version: String },

    #[error("module {module}: {error}")]
    Registry {
        module: String,
        #[source]
        error: RegistryError,
    },

    #[error("module registry {host} returned an invalid source location {:?} for {module} v{version}: {error}", redacted_source(location))]
    BadLocation {
        host: String,
        module: String,
        version: String,
        location: String,
        #[source]
        error: Box<LocationError>,
    },

    /// A git step failed; the error's text has the URL's credentials taken out
    /// ([`GitError::scrubbed`]).
    #[error("module source {}: {error}", redacted_source(source_str))]
    Git {
        source_str: String,
        #[source]
        error: GitError,
    },

    #[error("downloading module package {}: {error}", redacted_source(url))]
    Download {
        url: String,
        #[source]
        error: Box<FetchError>,
    },

    #[error("module package {}: {error}", redacted_source(url))]
    Package {
        url: String,
        #[source]
        error: PackageFault,
    },

    #[error("{what} is not in the module cache, and --offline forbids fetching it")]
    Offline { what: String },

    #[error("module cache: {0}")]
    Keep(#[source] KeepError),

    #[error("no HTTP client was configured for module downloads")]
    NoHttpClient,

    /// A semaphore of the fetcher was closed (it never is while the fetcher lives).
    #[error("the {0} semaphore was closed")]
    Closed(&'static str),
}

/// Why an `oci://` module package could not be had, naming the rule it breaks.
#[derive(Debug, Clone, thiserror::Error)]
#[error(transparent)]
pub struct OciModuleError(pub(crate) OciFault);

/// What [`OciModuleError`] holds; the texts of the rules are OpenTofu's
/// (`internal/getmodules/oci_getter.go`).
#[derive(Debug, Clone, thiserror::Error)]
pub(crate) enum OciFault {
    /// The address, tag or digest is not a valid OCI name.
    #[error(transparent)]
    Name(#[from] NameError),
    #[error("{0}")]
    Registry(Arc<OciError>),
    #[error("{0}")]
    Credentials(CredentialsError),
    #[error("no OCI client is available (offline run)")]
    NoClient,
    #[error("selected object is not an OCI image manifest (it is {0})")]
    NotImageManifest(String),
    #[error("{0}")]
    Manifest(Broken),
    #[error("image manifest contains no layers of types supported as module packages by OpenTofu{}", if *.others { ", but has other unsupported formats; this OCI artifact might be intended for a different version of OpenTofu" } else { "" })]
    NoLayer { others: bool },
    #[error("multiple layers with media type \"archive/zip\"")]
    MultipleLayers,
    #[error("reading the package failed: {0}")]
    Task(String),
}

impl From<OciError> for OciFault {
    fn from(error: OciError) -> OciFault {
        OciFault::Registry(Arc::new(error))
    }
}

/// Why getting a package's bytes failed, before its content was read.
#[derive(Debug, Clone, thiserror::Error)]
pub enum FetchError {
    /// Asking an http(s) URL for its `X-Terraform-Get` failed.
    #[error(transparent)]
    Page(#[from] RegistryError),
    /// The archive's download failed.
    #[error(transparent)]
    Download(#[from] DownloadError),
    #[error("more than {0} X-Terraform-Get redirections")]
    TooManyRedirections(usize),
    #[error("a remote answer may only point to a git repository or an http(s) URL")]
    NotFetchable,
    #[error("no source URL was returned (no X-Terraform-Get header or terraform-get meta tag)")]
    NoLocation,
    #[error("bad X-Terraform-Get {location:?}: {error}")]
    BadLocation {
        location: String,
        #[source]
        error: SourceError,
    },
    /// The task reading the archive did not finish (it panicked).
    #[error("reading the archive failed: {0}")]
    Task(Arc<tokio::task::JoinError>),
}

/// What is wrong with a package that was fetched.
#[derive(Debug, Clone, thiserror::Error)]
pub enum PackageFault {
    #[error(transparent)]
    Content(#[from] ContentError),
    #[error(transparent)]
    Archive(#[from] ArchiveError),
    #[error(transparent)]
    Subdir(#[from] SubdirError),
    #[error("{} is not a directory", .0.display())]
    NotADirectory(PathBuf),
    /// go-getter's `?checksum=` does not match the archive.
    #[error("checksum mismatch: the archive has {got}, the source asks for {want}")]
    Checksum { got: String, want: String },
    #[error("cannot read the download: {0}")]
    Unreadable(Arc<std::io::Error>),
}

/// Why a registry's download location cannot be used.
#[derive(Debug, Clone, thiserror::Error)]
pub enum LocationError {
    #[error(transparent)]
    Source(#[from] SourceError),
    #[error(transparent)]
    Subdir(#[from] SubdirError),
}

/// Why a fetched package could not be kept on disk (in the module cache, or the run's
/// scratch directory when there is none).
#[derive(Debug, Clone, thiserror::Error)]
pub enum KeepError {
    #[error("cannot create the module staging directory: {0}")]
    Staging(Arc<std::io::Error>),
    #[error("cannot create a directory in {}: {error}", dir.display())]
    Scratch {
        dir: PathBuf,
        #[source]
        error: Arc<std::io::Error>,
    },
    /// A package's own directory inside the scratch directory.
    #[error(transparent)]
    WorkDir(Arc<std::io::Error>),
    #[error("cannot write {}: {error}", dir.display())]
    Write {
        dir: PathBuf,
        #[source]
        error: Arc<std::io::Error>,
    },
}
