//! OpenTofu's OCI registry mirror as a package source: the CLI configuration's
//! `oci_mirror` and `--oci-mirror` (1.13's `tofu providers lock -oci-mirror`), read as
//! OpenTofu v1.12.6 reads it (`internal/getproviders/oci_registry_mirror_source.go`).
//!
//! - [`template`]: which repository holds a provider ([`RepositoryTemplate`]);
//! - [`artifact`]: what a provider version looks like there, the reader's rules and the
//!   writer's bytes;
//! - [`publish`]: pushing provider versions into a registry (`tfsum mirror --layout oci`);
//! - this file: [`OciMirror`], the source: versions from the tags (those that are not
//!   versions skipped), and each platform's package through tag → index → image
//!   manifest → `archive/zip` layer, every step checked as OpenTofu checks it, the blob
//!   against its digest as it streams.
//!
//! What a lock entry gets from it, per platform, is what `tofu providers lock
//! -oci-mirror=… -platform=…` records: the `h1:` of the unpacked zip and the `zh:` that
//! is the blob's digest (study §1.8; `oci_registry_mirror_source.go:336-346`). The
//! `h1:` of a zip is kept in the hash cache under the zip's digest, so a blob is
//! downloaded once, ever. Where the origin registry also serves the provider, the
//! package sources add its signed `zh:` lines (and check the blob is one of them;
//! [`crate::Sources::package_hashes`]).

pub mod artifact;
pub mod publish;
pub(crate) mod template;

use std::collections::{BTreeSet, HashMap};
use std::fmt;
use std::sync::{Arc, Mutex};

use tokio::sync::{OnceCell, Semaphore};

use tfsum_disk::cache::{Cache, ZipEntry};
use tfsum_net::download::{max_download_bytes, zip_sink};
use tfsum_net::oci::{
    CredentialsError, Descriptor, Digest, ImageIndex, OciAccess, OciClient, OciError, Reference,
    RepositoryAddr, Tag,
};
use tfsum_vocab::addr::{Platform, PlatformPackage, ProviderAddr};
use tfsum_vocab::hash::zipstream::{ZipHashes, ZipLimits};
use tfsum_vocab::hash::Hash;
use tfsum_vocab::version::Version;

use artifact::Broken;
pub use template::{RepositoryTemplate, TemplateError};

/// Why the OCI mirror could not answer ([`OciMirrorFault`], boxed: it travels in every
/// `Result` of the source).
#[derive(Debug, Clone, thiserror::Error)]
#[error(transparent)]
pub struct OciMirrorError(Box<OciMirrorFault>);

impl From<OciMirrorFault> for OciMirrorError {
    fn from(fault: OciMirrorFault) -> OciMirrorError {
        OciMirrorError(Box::new(fault))
    }
}

impl From<OciError> for OciMirrorError {
    fn from(error: OciError) -> OciMirrorError {
        OciMirrorFault::from(error).into()
    }
}

impl From<TemplateError> for OciMirrorError {
    fn from(error: TemplateError) -> OciMirrorError {
        OciMirrorFault::from(error).into()
    }
}

impl From<CredentialsError> for OciMirrorError {
    fn from(error: CredentialsError) -> OciMirrorError {
        OciMirrorFault::from(error).into()
    }
}

/// What an [`OciMirrorError`] holds. Each names the repository and, past the tag list,
/// the tag; an artifact error says which of OpenTofu's rules it breaks.
#[derive(Debug, Clone, thiserror::Error)]
pub(crate) enum OciMirrorFault {
    #[error(transparent)]
    Template(#[from] TemplateError),
    /// The OCI credentials could not be had (a credentials file the CLI configuration
    /// names, a helper).
    #[error("OCI mirror: {0}")]
    Credentials(#[from] CredentialsError),
    /// A request failed; the error names the repository and what was asked.
    #[error("OCI mirror: {0}")]
    Registry(Arc<OciError>),
    /// The artifact breaks a rule of OpenTofu's reader.
    #[error("OCI mirror {repository}:{tag}: {rule}")]
    Artifact {
        repository: RepositoryAddr,
        tag: String,
        rule: Broken,
    },
    /// The layer's digest is not among the hashes the lock files record for the
    /// version (`package_location_oci_blob_archive.go:117-131`): checked before the blob
    /// is fetched.
    #[error("OCI mirror {repository}:{tag} ({platform}): the package {zh} doesn't match any of the checksums previously recorded in the dependency lock file")]
    NotRecorded {
        repository: RepositoryAddr,
        tag: String,
        platform: Platform,
        zh: Hash,
    },
    /// The run ended before the download could start.
    #[error("OCI mirror {repository}: the run's download slots were closed")]
    Cancelled { repository: RepositoryAddr },
    /// The version has no package for the platform.
    #[error("OCI mirror {repository}:{tag} has no package for {platform}")]
    Missing {
        repository: RepositoryAddr,
        tag: String,
        platform: Platform,
    },
}

impl From<OciError> for OciMirrorFault {
    fn from(error: OciError) -> OciMirrorFault {
        OciMirrorFault::Registry(Arc::new(error))
    }
}

/// A provider version's index, as the tag names it.
#[derive(Debug)]
struct VersionIndex {
    repository: RepositoryAddr,
    tag: Tag,
    index: ImageIndex,
}

/// One platform's zip, found through the index and its image manifest.
#[derive(Debug, Clone)]
pub(crate) struct Layer {
    pub repository: RepositoryAddr,
    pub tag: String,
    pub layer: Descriptor,
}

impl Layer {
    /// The `zh:` the layer's digest is.
    pub(crate) fn zh(&self) -> Hash {
        zh_of(self.layer.digest)
    }
}

/// A digest as the `zh:` it is (`hashFromOCIDigest`, `package_location_oci_blob_archive.go:273-285`).
pub fn zh_of(digest: Digest) -> Hash {
    Hash::zh_from_digest(digest.sha256())
}

type Cell<T> = Arc<OnceCell<Result<T, OciMirrorError>>>;
/// Indexes by (provider, version), layers by (provider, version, platform), each once.
type Cells<K, T> = Mutex<HashMap<K, Cell<T>>>;

/// One `oci_mirror` (or `--oci-mirror`): a template over one client. Cheap to share
/// behind an `Arc`; what it resolves is kept for the run.
pub struct OciMirror {
    template: RepositoryTemplate,
    access: OciAccess,
    cache: Cache,
    limits: ZipLimits,
    jobs: Arc<Semaphore>,
    indexes: Cells<(ProviderAddr, Version), Option<Arc<VersionIndex>>>,
    layers: Cells<(ProviderAddr, Version, Platform), Option<Layer>>,
}

impl fmt::Debug for OciMirror {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OciMirror")
            .field("template", &self.template)
            .finish()
    }
}

fn cell<K: std::hash::Hash + Eq, T>(cells: &Mutex<HashMap<K, Cell<T>>>, key: K) -> Cell<T> {
    let mut cells = match cells.lock() {
        Ok(cells) => cells,
        Err(poisoned) => poisoned.into_inner(),
    };
    cells.entry(key).or_default().clone()
}

impl OciMirror {
    pub(crate) fn new(
        template: RepositoryTemplate,
        access: OciAccess,
        cache: Cache,
        limits: ZipLimits,
        jobs: Arc<Semaphore>,
    ) -> OciMirror {
        OciMirror {
            template,
            access,
            cache,
            limits,
            jobs,
            indexes: Mutex::default(),
            layers: Mutex::default(),
        }
    }

    pub(crate) fn template(&self) -> &RepositoryTemplate {
        &self.template
    }

    fn client(&self) -> Result<Arc<OciClient>, OciMirrorError> {
        Ok(self.access.client()?)
    }

    /// The provider's versions: every tag that parses as a version once each `_` is
    /// read as `+`, sorted; `None` when the repository does not exist (404,
    /// `NAME_UNKNOWN`, `NAME_INVALID`), so that other methods may answer
    /// (`oci_registry_mirror_source.go:176-273`).
    pub(crate) async fn versions(
        &self,
        provider: &ProviderAddr,
    ) -> Result<Option<Vec<String>>, OciMirrorError> {
        let repository = self.template.repository(provider)?;
        let tags = match self.client()?.list_tags(&repository).await {
            Ok(tags) => tags,
            Err(e) if e.is_not_found() => return Ok(None),
            Err(e) => return Err(e.into()),
        };
        let mut versions: Vec<Version> = tags
            .iter()
            .filter_map(|tag| Version::parse(&artifact::tag_version(tag)).ok())
            .collect();
        versions.sort();
        versions.dedup();
        Ok(Some(versions.iter().map(Version::to_string).collect()))
    }

    /// The version's index, resolved and checked once per run; `None` when the tag
    /// does not exist.
    async fn index(
        &self,
        provider: &ProviderAddr,
        version: &Version,
    ) -> Result<Option<Arc<VersionIndex>>, OciMirrorError> {
        let cell = cell(&self.indexes, (provider.clone(), version.clone()));
        cell.get_or_init(|| self.fetch_index(provider, version))
            .await
            .clone()
    }

    async fn fetch_index(
        &self,
        provider: &ProviderAddr,
        version: &Version,
    ) -> Result<Option<Arc<VersionIndex>>, OciMirrorError> {
        let repository = self.template.repository(provider)?;
        let tag_text = artifact::version_tag(&version.to_string());
        let broken = |rule| OciMirrorFault::Artifact {
            repository: repository.clone(),
            tag: tag_text.clone(),
            rule,
        };
        let tag = Tag::parse(&tag_text).map_err(tfsum_net::oci::OciError::from)?;
        let resolved = match self
            .client()?
            .resolve(&repository, &Reference::Tag(tag.clone()))
            .await
        {
            Ok(resolved) => resolved,
            Err(e) if e.is_not_found() => return Ok(None),
            Err(e) => return Err(e.into()),
        };
        artifact::check_resolved(&resolved).map_err(broken)?;
        let bytes = self
            .client()?
            .fetch_manifest(&repository, &resolved)
            .await?;
        let index = artifact::read_index(&bytes).map_err(broken)?;
        Ok(Some(Arc::new(VersionIndex {
            repository,
            tag,
            index,
        })))
    }

    /// The platform's zip layer, found and checked once per run; `None` when the
    /// mirror does not have the version, or has it but not for the platform.
    pub(crate) async fn layer(
        &self,
        provider: &ProviderAddr,
        version: &Version,
        platform: &Platform,
    ) -> Result<Option<Layer>, OciMirrorError> {
        let key = (provider.clone(), version.clone(), platform.clone());
        let cell = cell(&self.layers, key);
        cell.get_or_init(|| self.find_layer(provider, version, platform))
            .await
            .clone()
    }

    async fn find_layer(
        &self,
        provider: &ProviderAddr,
        version: &Version,
        platform: &Platform,
    ) -> Result<Option<Layer>, OciMirrorError> {
        let Some(found) = self.index(provider, version).await? else {
            return Ok(None);
        };
        let broken = |rule| OciMirrorFault::Artifact {
            repository: found.repository.clone(),
            tag: found.tag.to_string(),
            rule,
        };
        let Some(entry) = artifact::select_manifest(&found.index, platform).map_err(broken)? else {
            return Ok(None);
        };
        let bytes = self
            .client()?
            .fetch_manifest(&found.repository, entry)
            .await?;
        let manifest = artifact::read_platform_manifest(&bytes, entry).map_err(broken)?;
        let layer = artifact::select_layer(&manifest, Some(platform)).map_err(broken)?;
        Ok(Some(Layer {
            repository: found.repository.clone(),
            tag: found.tag.to_string(),
            layer: layer.clone(),
        }))
    }

    /// Whether the mirror has the package.
    pub(crate) async fn has_package(
        &self,
        provider: &ProviderAddr,
        version: &Version,
        platform: &Platform,
    ) -> Result<bool, OciMirrorError> {
        Ok(self.layer(provider, version, platform).await?.is_some())
    }

    /// The platforms the version's index lists, for `tfsum verify`.
    pub(crate) async fn platforms(
        &self,
        provider: &ProviderAddr,
        version: &Version,
    ) -> Result<Vec<Platform>, OciMirrorError> {
        Ok(match self.index(provider, version).await? {
            Some(found) => artifact::index_platforms(&found.index),
            None => Vec::new(),
        })
    }

    /// Each platform's layer, in the order of `platforms` (the routing asks only for
    /// platforms the mirror has).
    pub(crate) async fn layers(
        &self,
        provider: &ProviderAddr,
        version: &Version,
        platforms: &[Platform],
    ) -> Result<Vec<Layer>, OciMirrorError> {
        let mut layers = Vec::new();
        for platform in platforms {
            match self.layer(provider, version, platform).await? {
                Some(layer) => layers.push(layer),
                None => {
                    return Err(OciMirrorFault::Missing {
                        repository: self.template.repository(provider)?,
                        tag: artifact::version_tag(&version.to_string()),
                        platform: platform.clone(),
                    }
                    .into())
                }
            }
        }
        Ok(layers)
    }

    /// The `h1:` of each layer's zip, in order: from the hash cache when an earlier run
    /// hashed the same blob, else from the blob, downloaded (in parallel, within the
    /// run's download slots), verified against its digest and hashed as it streams.
    /// With the layers' digests (their `zh:`), what a lock entry records.
    pub(crate) async fn h1s(&self, layers: &[Layer]) -> Result<Vec<Hash>, OciMirrorError> {
        futures::future::join_all(layers.iter().map(|layer| self.h1(layer)))
            .await
            .into_iter()
            .collect()
    }

    /// The layer's `h1:`: cached, or downloaded and hashed (and cached).
    async fn h1(&self, layer: &Layer) -> Result<Hash, OciMirrorError> {
        let hex = layer.layer.digest.hex();
        if let Some(entry) = self.cache.zip(&hex) {
            if let Ok(h1) = Hash::parse(&entry.h1) {
                return Ok(h1);
            }
        }
        Ok(self.download(layer, None).await?.h1)
    }

    /// The package for one platform written to `into` (emptied first), verified against
    /// its digest, with its hashes. When `recorded` (the hashes the lock files record
    /// for the version) holds any `zh:`, the layer's must be one of them, checked
    /// before anything is downloaded, as `tofu init` checks it.
    pub(crate) async fn fetch_package(
        &self,
        package: PlatformPackage<'_>,
        into: &std::fs::File,
        recorded: &BTreeSet<Hash>,
    ) -> Result<Option<ZipHashes>, OciMirrorError> {
        let Some(layer) = self
            .layer(package.provider, package.version, package.platform)
            .await?
        else {
            return Ok(None);
        };
        let zh = layer.zh();
        let locks_zh = recorded.iter().any(|h| h.scheme() == "zh");
        if locks_zh && !recorded.contains(&zh) {
            return Err(OciMirrorFault::NotRecorded {
                repository: layer.repository.clone(),
                tag: layer.tag.clone(),
                platform: package.platform.clone(),
                zh,
            }
            .into());
        }
        self.download(&layer, Some(into)).await.map(Some)
    }

    /// Downloads the layer's blob within one of the run's download slots, hashing it
    /// (and writing it to `into`); the `h1:` is cached under the blob's digest.
    async fn download(
        &self,
        layer: &Layer,
        into: Option<&std::fs::File>,
    ) -> Result<ZipHashes, OciMirrorError> {
        let _permit = self
            .jobs
            .acquire()
            .await
            .map_err(|_| OciMirrorFault::Cancelled {
                repository: layer.repository.clone(),
            })?;
        let descriptor = &layer.layer;
        let label = blob_url(&layer.repository, descriptor.digest);
        let max = max_download_bytes(&self.limits);
        let hashed = self
            .client()?
            .fetch_blob_into(
                &layer.repository,
                descriptor.digest,
                descriptor.size,
                max,
                || zip_sink(&label, &self.limits, into),
            )
            .await?;
        self.cache.put_zip(
            &descriptor.digest.hex(),
            &ZipEntry {
                h1: hashed.h1.to_string(),
                size: hashed.bytes,
            },
        );
        Ok(hashed)
    }
}

/// `https://<registry>/v2/<repository>/blobs/<digest>`: how a blob is named in errors
/// about its content.
fn blob_url(repository: &RepositoryAddr, digest: Digest) -> url::Url {
    let text = format!(
        "https://{}/v2/{}/blobs/{digest}",
        repository.request_host(),
        repository.repository()
    );
    url::Url::parse(&text).unwrap_or_else(|_| {
        url::Url::parse("https://oci.invalid/").unwrap_or_else(|e| panic!("constant URL: {e}"))
    })
}
