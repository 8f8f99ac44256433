//! What the package sources say when they cannot answer, as values: why a version list
//! could not be had ([`VersionsError`]), why a package's hashes could not be established
//! ([`PackageError`], one [`PackageProblem`]), why a mirror failed ([`MirrorError`]), and
//! what a source skipped without failing ([`SourceWarning`]).
//!
//! Each carries the data a report needs (provider, version, platform, URL, path); the text
//! is made by `Display`, where it is printed.

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use url::Url;

use crate::oci::{OciMirrorError, TemplateError};
use tfsum_net::download::DownloadError;
use tfsum_net::registry::RegistryError;
use tfsum_vocab::addr::{AddrError, Platform, ProviderAddr};
use tfsum_vocab::hash::{Hash, HashError};
use tfsum_vocab::url::SafeUrl;
use tfsum_vocab::version::{Version, VersionError};

use tfsum_vocab::hash::signature::SignatureError;

/// A package source, as messages and reports name it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SourceName {
    Registry,
    FsMirror(PathBuf),
    NetMirror(Url),
    /// An OCI mirror, by its repository template.
    OciMirror(String),
}

impl fmt::Display for SourceName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SourceName::Registry => f.write_str("the provider's registry"),
            SourceName::FsMirror(dir) => write!(f, "the filesystem mirror {}", dir.display()),
            SourceName::NetMirror(base) => write!(f, "the network mirror {base}"),
            SourceName::OciMirror(template) => write!(f, "the OCI mirror {template}"),
        }
    }
}

/// `a or b or c`.
struct Either<'a>(&'a [SourceName]);

impl fmt::Display for Either<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, name) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(" or ")?;
            }
            write!(f, "{name}")?;
        }
        Ok(())
    }
}

/// Why a provider's versions could not be listed.
#[derive(Debug, Clone, thiserror::Error)]
pub enum VersionsError {
    #[error(transparent)]
    Registry(RegistryError),
    #[error("offline, and the cache holds no version list for {provider}")]
    Offline { provider: ProviderAddr },
    #[error(transparent)]
    Mirror(Box<MirrorError>),
    /// No `provider_installation` method includes the provider.
    #[error("provider {provider} is not matched by any provider installation method")]
    NoMethod { provider: ProviderAddr },
    /// None of the provider's sources knows it.
    #[error("provider {provider} was not found in {}", Either(.sources))]
    NotFound {
        provider: ProviderAddr,
        sources: Vec<SourceName>,
    },
}

/// Why a package's hashes could not be established: always the package (provider,
/// version and, where one is involved, platform) and the problem. Boxed: it travels in
/// every `Result` of the hash stage.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{0}")]
pub struct PackageError(Box<PackageFailure>);

/// What a [`PackageError`] holds.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{}: {problem}", Label { provider, version, platform: platform.as_ref() })]
pub struct PackageFailure {
    pub provider: ProviderAddr,
    pub version: Version,
    pub platform: Option<Platform>,
    pub problem: PackageProblem,
}

impl PackageError {
    pub fn new(
        provider: &ProviderAddr,
        version: &Version,
        platform: Option<&Platform>,
        problem: PackageProblem,
    ) -> PackageError {
        PackageError(Box::new(PackageFailure {
            provider: provider.clone(),
            version: version.clone(),
            platform: platform.cloned(),
            problem,
        }))
    }
}

impl std::ops::Deref for PackageError {
    type Target = PackageFailure;

    fn deref(&self) -> &PackageFailure {
        &self.0
    }
}

/// `provider version (platform)`.
struct Label<'a> {
    provider: &'a ProviderAddr,
    version: &'a Version,
    platform: Option<&'a Platform>,
}

impl fmt::Display for Label<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.provider, self.version)?;
        if let Some(platform) = self.platform {
            write!(f, " ({platform})")?;
        }
        Ok(())
    }
}

/// What went wrong with one package.
#[derive(Debug, Clone, thiserror::Error)]
pub enum PackageProblem {
    /// A registry request (version list, download document, SHA256SUMS) failed.
    #[error(transparent)]
    Registry(RegistryError),
    /// Offline, and the cache lacks what is needed: these platforms' packages, or (when
    /// empty) the version's signed SHA256SUMS.
    #[error("offline, and the cache does not hold {}", OfflineWhat(.missing))]
    Offline { missing: Vec<Platform> },
    #[error("the registry lists no platform for this version")]
    NoPlatformListed,
    #[error("no platform was requested")]
    NoPlatformRequested,
    /// Terraform and OpenTofu speak plugin protocols 5 and 6 (spec §5.3).
    #[error(
        "this version supports plugin protocols {} only; Terraform and OpenTofu need 5 or 6, so it cannot be used (choose another version with a constraint)",
        .protocols.join(", ")
    )]
    Protocols { protocols: Vec<String> },
    /// SHA256SUMS did not verify against its signature and the registry's keys.
    #[error("signature {signature_url} of {sums_url} does not verify: {error}")]
    Signature {
        sums_url: Box<Url>,
        signature_url: Box<Url>,
        error: SumsError,
    },
    /// The signed SHA256SUMS does not vouch for the registry's `shasum` (spec §5.4).
    #[error(transparent)]
    Unvouched(SumsMismatch),
    /// The download failed (network, size limit, deadline, not a zip).
    #[error("{error}")]
    Download { url: Url, error: Box<DownloadError> },
    /// The zip's SHA-256 is not the registry's `shasum`.
    #[error(
        "the zip downloaded from {url} has sha256 {} but the registry reports {}",
        hex::encode(.got),
        hex::encode(.reported)
    )]
    Checksum {
        url: Box<Url>,
        got: [u8; 32],
        reported: [u8; 32],
    },
    /// OpenTofu's `packages` map (spec §10) cannot stand in for downloads.
    #[error(transparent)]
    PackagesMap(PackagesMapError),
    #[error(transparent)]
    Mirror(MirrorError),
    /// None of the provider's sources has the package.
    #[error("not available in {}", Either(.0))]
    NotAvailable(Vec<SourceName>),
    /// The blocking task hashing a mirror's package panicked or was cancelled.
    #[error("hashing task failed: {0}")]
    Task(String),
    /// `tfsum mirror` copies packages as zips; this mirror holds the package unpacked.
    #[error("the filesystem mirror holds it unpacked ({}); tfsum mirror copies zips only", .0.display())]
    UnpackedOnly(std::path::PathBuf),
    /// Copying a filesystem mirror's zip failed.
    #[error("cannot copy it from the filesystem mirror: {0}")]
    Copy(String),
    /// The run's download slots were closed (the run is ending).
    #[error("the run's download slots were closed")]
    Cancelled,
    /// The hash stage produced nothing for the package (a bug, reported as such).
    #[error("no hashes were computed")]
    NotComputed,
    /// An OCI mirror serves a zip for the platform that is none of the packages the
    /// origin registry's signed SHA256SUMS lists: not the origin's bytes.
    #[error("the OCI mirror {template} serves {zh} for it, which is not a line of the origin registry's signed SHA256SUMS: the mirror holds other bytes than the provider's official package")]
    NotOrigin {
        template: String,
        platform: Platform,
        zh: Hash,
    },
}

/// `the package for linux_amd64, darwin_arm64` or `its signed SHA256SUMS`.
struct OfflineWhat<'a>(&'a [Platform]);

impl fmt::Display for OfflineWhat<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str("its signed SHA256SUMS");
        }
        let names: Vec<String> = self.0.iter().map(Platform::to_string).collect();
        write!(f, "the package for {}", names.join(", "))
    }
}

/// Why OpenTofu's `packages` map cannot be used for a package.
#[derive(Debug, Clone, thiserror::Error)]
pub enum PackagesMapError {
    #[error("the registry's packages map has no entry for {0}")]
    NoEntry(Platform),
    #[error("the registry's packages map lacks h1: or zh: for {0}")]
    Incomplete(Platform),
    /// The map's entry for the platform that was downloaded disagrees with the download.
    #[error(
        "the registry's packages map disagrees with the package downloaded for {}: it says {} {} ({} bytes), the package has {} {} ({} bytes)",
        .0.platform, .0.claimed.h1, .0.claimed.zh, .0.claimed.size, .0.downloaded.h1, .0.downloaded.zh, .0.downloaded.size
    )]
    Disagrees(Box<Disagreement>),
}

/// The map's claim about the downloaded platform, and what the download gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Disagreement {
    pub platform: Platform,
    pub claimed: MapEntry,
    pub downloaded: MapEntry,
}

/// One platform's hashes and size, as the map claims them or the download gave them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MapEntry {
    pub h1: String,
    pub zh: String,
    pub size: u64,
}

/// Why a mirror could not answer. Every variant names the mirror, URL or file involved.
#[derive(Debug, Clone, thiserror::Error)]
pub enum MirrorError {
    #[error("cannot read the filesystem mirror {}: {error}", dir.display())]
    Scan {
        dir: PathBuf,
        error: Arc<std::io::Error>,
    },
    #[error("cannot read the filesystem mirror {}: not a directory", dir.display())]
    NotADirectory { dir: PathBuf },
    /// The mirror has no package for what was asked.
    #[error("{}", .0)]
    NotAvailable(Box<Unavailable>),
    /// A package of a filesystem mirror could not be hashed (unreadable, over the
    /// package limits, not a zip).
    #[error("hashing {}: {error}", path.display())]
    Hash {
        path: PathBuf,
        error: Arc<HashError>,
    },
    #[error(transparent)]
    Registry(#[from] RegistryError),
    /// The network mirror answered something tfsum cannot use.
    #[error("network mirror: {url}: {problem}")]
    Invalid {
        url: SafeUrl,
        problem: InvalidAnswer,
    },
    /// The mirror gives no hash tfsum can check a download against.
    #[error("network mirror: the package downloaded from {url} cannot be checked: the mirror gives no checksum in a format tfsum supports (h1:, zh:)")]
    Uncheckable { url: Url },
    /// A downloaded archive does not match the hashes the mirror gave for it.
    #[error("{}", .0)]
    Mismatch(Box<Mismatch>),
    /// The download failed (network, size limit, deadline, not a zip); the error names
    /// the URL.
    #[error("network mirror: {error}")]
    Download { url: Url, error: Box<DownloadError> },
    /// The run ended before the download could start.
    #[error("network mirror: {url}: the run's download slots were closed")]
    Cancelled { url: Url },
    #[error(
        "invalid network mirror URL {given:?}: it must start with https:// (as Terraform requires)"
    )]
    NotHttps { given: String },
    #[error("invalid network mirror URL {given:?}: {error} (a full URL is needed, such as https://mirror.example/providers/)")]
    BadUrl {
        given: String,
        error: url::ParseError,
    },
    #[error("invalid network mirror URL {given:?}: not a hierarchical URL")]
    NotHierarchical { given: String },
    /// A CLI configuration's network mirror, on an offline run.
    #[error("the network mirror {url} (in {}) cannot be used offline", file.display())]
    Offline { url: String, file: PathBuf },
    /// An OCI mirror could not answer.
    #[error(transparent)]
    Oci(Box<OciMirrorError>),
    /// An `oci_mirror` block whose template cannot be used.
    #[error("{}: oci_mirror: {error}", file.display())]
    OciTemplate { file: PathBuf, error: TemplateError },
    /// An OCI mirror, and no OCI client (an offline run).
    #[error("the OCI mirror {template} cannot be used offline")]
    OciOffline { template: String },
}

impl From<OciMirrorError> for MirrorError {
    fn from(error: OciMirrorError) -> MirrorError {
        MirrorError::Oci(Box::new(error))
    }
}

/// A package a mirror does not have.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{provider} {version} for {platform} is not available in {mirror}")]
pub struct Unavailable {
    pub mirror: SourceName,
    pub provider: ProviderAddr,
    pub version: Version,
    pub platform: Platform,
}

/// A network mirror's archive that matches none of the mirror's hashes for it.
#[derive(Debug, Clone, thiserror::Error)]
#[error(
    "network mirror: the package downloaded from {url} matches none of the mirror's checksums ({}): it has {h1} and {zh}",
    .listed.iter().map(Hash::as_str).collect::<Vec<_>>().join(", ")
)]
pub struct Mismatch {
    pub url: Url,
    pub listed: Vec<Hash>,
    pub h1: Hash,
    pub zh: Hash,
}

/// What is wrong with a network mirror's answer.
#[derive(Debug, Clone, thiserror::Error)]
pub enum InvalidAnswer {
    #[error("{0}")]
    Json(Arc<serde_json::Error>),
    #[error("the mirror lists an invalid version: {0}")]
    Version(VersionError),
    #[error("archive URL {url:?} for {platform}: {error}")]
    ArchiveUrl {
        platform: String,
        url: String,
        error: url::ParseError,
    },
    #[error("archive URL for {platform} must be http or https, not {scheme:?}")]
    ArchiveScheme { platform: String, scheme: String },
    #[error("invalid hash {text:?} for {platform}")]
    Hash { platform: String, text: String },
    #[error("cannot form the URL for {relative}: {error}")]
    Path {
        relative: String,
        error: url::ParseError,
    },
}

/// Something a source skipped or ignored without failing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SourceWarning {
    /// An entry of a filesystem mirror that is not a valid package.
    #[error("filesystem mirror: {}: {reason}; skipped", path.display())]
    FsMirrorSkipped { path: PathBuf, reason: SkipReason },
    /// A CLI configuration's `dev_overrides` entry: overridden providers are not locked.
    #[error("{}: dev_overrides for {provider} ignored: overridden providers get no lock entry", file.display())]
    DevOverride { file: PathBuf, provider: String },
}

/// Why a filesystem mirror entry was skipped.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SkipReason {
    #[error("the name is not valid UTF-8")]
    NotUtf8,
    #[error("ignored symlink: only the base directory {} may be a symlink", base.display())]
    Symlink { base: PathBuf },
    /// `HOST/NAMESPACE/TYPE` is not a provider address.
    #[error("{0}")]
    NotProvider(AddrError),
    #[error("cannot read its metadata (a broken symlink?)")]
    Unreadable,
    #[error("invalid version: {0}")]
    Version(VersionError),
    #[error("{0}")]
    Platform(AddrError),
    #[error("not a package for {provider}: the name lacks the prefix {prefix:?}")]
    NoPrefix {
        provider: ProviderAddr,
        prefix: String,
    },
    #[error("not a package for {provider}: the name lacks the suffix \".zip\"")]
    NoSuffix { provider: ProviderAddr },
    #[error("the name does not include version, target OS and architecture")]
    NoFields,
}

/// Why a signed SHA256SUMS document does not verify.
#[derive(Debug, Clone, thiserror::Error)]
pub enum SumsError {
    #[error("the SHA256SUMS document is not base64: {0}")]
    DocumentEncoding(base64::DecodeError),
    #[error("the signature is not base64: {0}")]
    SignatureEncoding(base64::DecodeError),
    #[error(transparent)]
    Signature(Arc<SignatureError>),
}

/// Why the signed SHA256SUMS does not vouch for a package's file (spec §5.4 step 1).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SumsMismatch {
    #[error("SHA256SUMS from {sums_url} lists {listed} for {filename}, but the registry reports shasum {reported}")]
    Differs {
        sums_url: Box<Url>,
        filename: String,
        listed: String,
        reported: String,
    },
    #[error("SHA256SUMS from {sums_url} has an invalid checksum for {filename}")]
    Invalid {
        sums_url: Box<Url>,
        filename: String,
    },
    #[error("SHA256SUMS from {sums_url} has no entry for {filename}")]
    Missing {
        sums_url: Box<Url>,
        filename: String,
    },
}

impl VersionsError {
    /// The registry does not know the provider (404), so other sources may still.
    pub fn is_not_found(&self) -> bool {
        matches!(
            self,
            VersionsError::Registry(RegistryError::ProviderNotFound { .. })
        )
    }

    /// What kind of failure it is, as the JSON report names it.
    pub fn kind(&self) -> &'static str {
        match self {
            VersionsError::Registry(_) => "registry_request",
            VersionsError::Offline { .. } => "offline",
            VersionsError::Mirror(_) => "mirror",
            VersionsError::NoMethod { .. } => "no_installation_method",
            VersionsError::NotFound { .. } => "provider_not_found",
        }
    }

    /// The URL that failed, if one did.
    pub fn url(&self) -> Option<String> {
        match self {
            VersionsError::Registry(e) => registry_url(e),
            VersionsError::Mirror(e) => e.url(),
            _ => None,
        }
    }
}

impl PackageError {
    /// What kind of failure it is, as the JSON report names it.
    pub fn kind(&self) -> &'static str {
        match &self.problem {
            PackageProblem::Registry(_) => "registry_request",
            PackageProblem::Offline { .. } => "offline",
            PackageProblem::NoPlatformListed => "no_platform_listed",
            PackageProblem::NoPlatformRequested => "no_platform_requested",
            PackageProblem::Protocols { .. } => "unsupported_protocols",
            PackageProblem::Signature { .. } => "signature",
            PackageProblem::Unvouched(_) => "sums_mismatch",
            PackageProblem::Download { .. } => "download",
            PackageProblem::Checksum { .. } => "checksum_mismatch",
            PackageProblem::PackagesMap(_) => "packages_map",
            PackageProblem::Mirror(_) => "mirror",
            PackageProblem::NotAvailable(_) => "not_available",
            PackageProblem::Task(_) => "hashing_task",
            PackageProblem::UnpackedOnly(_) => "unpacked_only",
            PackageProblem::Copy(_) => "copy",
            PackageProblem::Cancelled => "cancelled",
            PackageProblem::NotComputed => "not_computed",
            PackageProblem::NotOrigin { .. } => "oci_not_origin",
        }
    }

    /// The URL that failed or did not verify, if one did.
    pub fn url(&self) -> Option<String> {
        match &self.problem {
            PackageProblem::Registry(e) => registry_url(e),
            PackageProblem::Signature { signature_url, .. } => Some(signature_url.to_string()),
            PackageProblem::Unvouched(
                SumsMismatch::Differs { sums_url, .. }
                | SumsMismatch::Invalid { sums_url, .. }
                | SumsMismatch::Missing { sums_url, .. },
            ) => Some(sums_url.to_string()),
            PackageProblem::Download { url, .. } => Some(url.to_string()),
            PackageProblem::Checksum { url, .. } => Some(url.to_string()),
            PackageProblem::Mirror(e) => e.url(),
            _ => None,
        }
    }
}

impl MirrorError {
    /// The URL that failed or did not verify, if one did.
    pub(crate) fn url(&self) -> Option<String> {
        match self {
            MirrorError::Registry(e) => registry_url(e),
            MirrorError::Invalid { url, .. } => Some(url.to_string()),
            MirrorError::Uncheckable { url }
            | MirrorError::Download { url, .. }
            | MirrorError::Cancelled { url } => Some(url.to_string()),
            MirrorError::Mismatch(mismatch) => Some(mismatch.url.to_string()),
            _ => None,
        }
    }
}

/// The URL a registry request failed on (without credentials).
fn registry_url(error: &RegistryError) -> Option<String> {
    error.url().map(SafeUrl::to_string)
}
