//! A network mirror (spec §6): `GET <base><host>/<ns>/<type>/index.json` for versions,
//! `<version>.json` for each platform's archive URL and hashes, then the archive.
//!
//! The base URL must be https, as Terraform requires, and gets a trailing `/` so that
//! paths resolve below it. The JSON documents carry the token configured for the
//! mirror's host and `X-Terraform-Version`, like registry JSON; archives are plain
//! downloads without credentials, resolved against the final URL of `<version>.json`
//! (spec §11 items 12, 13). Each `<version>.json` is fetched once per run.
//!
//! The mirror's `hashes` verify the download: when present, at least one `h1:` or
//! `zh:` of them must match. They are not recorded: nothing signed them. What a lock
//! entry gets from a mirror is the `h1:` tfsum computes from the archive (spec §5.5).
//! A mirror's `h1:` is the plain `HashZip` of the archive (`terraform providers mirror`
//! writes it so), which equals the unpacked `h1:` tfsum computes unless the zip holds
//! directory entries (spec §2.1).

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use serde::Deserialize;
use tokio::sync::{OnceCell, Semaphore};
use url::Url;

use tfsum_net::registry::RegistryClient;
use tfsum_vocab::addr::{Platform, PlatformPackage, ProviderAddr};
use tfsum_vocab::hash::zipstream::{ZipHashes, ZipLimits};
use tfsum_vocab::hash::Hash;
use tfsum_vocab::version::Version;

use super::error::{InvalidAnswer, MirrorError, Mismatch, SourceName, Unavailable};
use super::MirrorOptions;
use tfsum_net::download::{download_and_hash, download_hash_and_keep};
use tfsum_vocab::progress::NoProgress;

/// One platform's archive as `<version>.json` describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Archive {
    /// Absolute: resolved against the final URL of `<version>.json`.
    pub url: Url,
    /// The mirror's hashes for it, parsed; may be empty (no verification possible).
    pub hashes: Vec<Hash>,
}

/// Platform (`os_arch`) to archive, for one version.
pub(crate) type Archives = BTreeMap<String, Archive>;

type ArchivesCell = Arc<OnceCell<Result<Option<Archives>, MirrorError>>>;

/// A network mirror client for one base URL. Cheap to share behind an `Arc`.
#[derive(Debug)]
pub struct NetMirror {
    base: Url,
    client: RegistryClient,
    limits: ZipLimits,
    jobs: Arc<Semaphore>,
    archives: Mutex<HashMap<(ProviderAddr, Version), ArchivesCell>>,
}

impl NetMirror {
    /// A mirror at `base`, which must be an https URL (spec §6, §9), downloading within
    /// the run's job slots and package limits.
    pub fn new(
        base: &str,
        client: RegistryClient,
        options: &MirrorOptions,
    ) -> Result<NetMirror, MirrorError> {
        let url = parse_base(base)?;
        if url.scheme() != "https" {
            return Err(MirrorError::NotHttps {
                given: base.to_string(),
            });
        }
        Ok(NetMirror::with_url(url, client, options))
    }

    /// Like [`NetMirror::new`] but also accepting http, for tests against a plain
    /// loopback server.
    #[cfg(test)]
    pub(crate) fn new_allowing_http(
        base: &str,
        client: RegistryClient,
        options: &MirrorOptions,
    ) -> Result<NetMirror, MirrorError> {
        Ok(NetMirror::with_url(parse_base(base)?, client, options))
    }

    fn with_url(base: Url, client: RegistryClient, options: &MirrorOptions) -> NetMirror {
        NetMirror {
            base,
            client,
            limits: options.zip_limits.clone(),
            jobs: options.jobs.clone(),
            archives: Mutex::new(HashMap::new()),
        }
    }

    /// The base URL, with its trailing `/`.
    pub(crate) fn base(&self) -> &Url {
        &self.base
    }

    /// The provider's versions from `index.json`, canonical, in precedence order;
    /// `None` when the mirror does not know the provider (404).
    pub(crate) async fn versions(
        &self,
        provider: &ProviderAddr,
    ) -> Result<Option<Vec<String>>, MirrorError> {
        let url = self.url(provider, "index.json")?;
        let what = format!("listing versions of provider {provider} in the network mirror");
        let Some((final_url, body)) = self.client.mirror_json(&what, &url).await? else {
            return Ok(None);
        };
        #[derive(Deserialize)]
        struct Index {
            #[serde(default)]
            versions: BTreeMap<String, serde_json::Value>,
        }
        let index: Index = serde_json::from_slice(&body).map_err(|e| json(&final_url, e))?;
        let mut versions = Vec::new();
        for raw in index.versions.keys() {
            let v =
                Version::parse(raw).map_err(|e| invalid(&final_url, InvalidAnswer::Version(e)))?;
            versions.push(v);
        }
        versions.sort();
        versions.dedup();
        Ok(Some(versions.iter().map(Version::to_string).collect()))
    }

    /// The archives of one version from `<version>.json`, fetched once per run and
    /// shared by concurrent callers; `None` when the mirror answers 404.
    pub(crate) async fn archives(
        &self,
        provider: &ProviderAddr,
        version: &Version,
    ) -> Result<Option<Archives>, MirrorError> {
        let cell = {
            let mut cells = match self.archives.lock() {
                Ok(cells) => cells,
                Err(poisoned) => poisoned.into_inner(),
            };
            cells
                .entry((provider.clone(), version.clone()))
                .or_default()
                .clone()
        };
        cell.get_or_init(|| self.fetch_archives(provider, version))
            .await
            .clone()
    }

    async fn fetch_archives(
        &self,
        provider: &ProviderAddr,
        version: &Version,
    ) -> Result<Option<Archives>, MirrorError> {
        let url = self.url(provider, &format!("{version}.json"))?;
        let what = format!("finding provider {provider} v{version} in the network mirror");
        let Some((final_url, body)) = self.client.mirror_json(&what, &url).await? else {
            return Ok(None);
        };
        #[derive(Deserialize)]
        struct VersionDoc {
            #[serde(default)]
            archives: BTreeMap<String, ArchiveJson>,
        }
        #[derive(Deserialize)]
        struct ArchiveJson {
            url: String,
            #[serde(default)]
            hashes: Option<Vec<String>>,
        }
        let doc: VersionDoc = serde_json::from_slice(&body).map_err(|e| json(&final_url, e))?;
        let mut archives = Archives::new();
        for (platform, archive) in doc.archives {
            let url = final_url.join(&archive.url).map_err(|error| {
                let problem = InvalidAnswer::ArchiveUrl {
                    platform: platform.clone(),
                    url: archive.url.clone(),
                    error,
                };
                invalid(&final_url, problem)
            })?;
            if url.scheme() != "https" && url.scheme() != "http" {
                let problem = InvalidAnswer::ArchiveScheme {
                    platform,
                    scheme: url.scheme().to_string(),
                };
                return Err(invalid(&final_url, problem));
            }
            let mut hashes = Vec::new();
            for text in archive.hashes.unwrap_or_default() {
                let hash = Hash::parse(&text).map_err(|_| {
                    let problem = InvalidAnswer::Hash {
                        platform: platform.clone(),
                        text: text.clone(),
                    };
                    invalid(&final_url, problem)
                })?;
                hashes.push(hash);
            }
            archives.insert(platform, Archive { url, hashes });
        }
        Ok(Some(archives))
    }

    /// Whether the mirror has this platform's package of the version.
    pub(crate) async fn has_package(
        &self,
        provider: &ProviderAddr,
        version: &Version,
        platform: &Platform,
    ) -> Result<bool, MirrorError> {
        Ok(self
            .archives(provider, version)
            .await?
            .is_some_and(|a| a.contains_key(&platform.to_string())))
    }

    /// Downloads each platform's archive, verifies it against the mirror's hashes and
    /// returns the `h1:` of each, in the order of `platforms`: what a lock entry records
    /// for mirror installs.
    pub(crate) async fn package_hashes(
        &self,
        provider: &ProviderAddr,
        version: &Version,
        platforms: &[Platform],
    ) -> Result<Vec<Hash>, MirrorError> {
        let archives = self.archives(provider, version).await?.unwrap_or_default();
        let mut wanted = Vec::new();
        for platform in platforms {
            let archive = self.archive(&archives, provider, version, platform)?;
            wanted.push(archive);
        }
        let results = futures::future::join_all(wanted.into_iter().map(|archive| async move {
            let _permit = self.permit(archive).await?;
            self.hash_archive(archive).await
        }))
        .await;
        results.into_iter().collect()
    }

    /// Downloads the package for one platform into `into` (emptied first), checked
    /// against the hashes the mirror lists for it, for `tfsum mirror`.
    pub(crate) async fn fetch_package(
        &self,
        package: PlatformPackage<'_>,
        into: &std::fs::File,
    ) -> Result<ZipHashes, MirrorError> {
        let PlatformPackage {
            provider,
            version,
            platform,
        } = package;
        let archives = self.archives(provider, version).await?.unwrap_or_default();
        let archive = self.archive(&archives, provider, version, platform)?;
        let _permit = self.permit(archive).await?;
        self.download_checked(archive, Some(into)).await
    }

    /// Downloads `archive` and hashes it (writing it to `into` too, when given), checked
    /// against the hashes the mirror lists for it.
    async fn download_checked(
        &self,
        archive: &Archive,
        into: Option<&std::fs::File>,
    ) -> Result<ZipHashes, MirrorError> {
        let (http, url, label) = (self.client.http(), &archive.url, archive.url.as_str());
        let hashed = match into {
            Some(into) => {
                download_hash_and_keep(http, url, &self.limits, &NoProgress, label, into).await
            }
            None => download_and_hash(http, url, &self.limits, &NoProgress, label).await,
        }
        .map_err(|error| MirrorError::Download {
            url: archive.url.clone(),
            error: Box::new(error),
        })?;
        if !archive.hashes.is_empty() {
            verify(archive, &hashed.h1, &hashed.zh())?;
        }
        Ok(hashed)
    }

    /// One of the run's download slots, for `archive`.
    async fn permit(
        &self,
        archive: &Archive,
    ) -> Result<tokio::sync::SemaphorePermit<'_>, MirrorError> {
        self.jobs
            .acquire()
            .await
            .map_err(|_| MirrorError::Cancelled {
                url: archive.url.clone(),
            })
    }

    /// The archive the mirror lists for `platform`, or why it is not available.
    fn archive<'a>(
        &self,
        archives: &'a BTreeMap<String, Archive>,
        provider: &ProviderAddr,
        version: &Version,
        platform: &Platform,
    ) -> Result<&'a Archive, MirrorError> {
        archives.get(&platform.to_string()).ok_or_else(|| {
            MirrorError::NotAvailable(Box::new(Unavailable {
                mirror: SourceName::NetMirror(self.base.clone()),
                provider: provider.clone(),
                version: version.clone(),
                platform: platform.clone(),
            }))
        })
    }

    async fn hash_archive(&self, archive: &Archive) -> Result<Hash, MirrorError> {
        Ok(self.download_checked(archive, None).await?.h1)
    }

    /// `<base><host>/<ns>/<type>/<leaf>`, with the host in its ASCII comparison form.
    /// The `./` keeps a `host:port` first segment from reading as a URL scheme.
    fn url(&self, provider: &ProviderAddr, leaf: &str) -> Result<Url, MirrorError> {
        let relative = format!(
            "./{}/{}/{}/{leaf}",
            provider.hostname.as_str(),
            provider.namespace,
            provider.r#type
        );
        self.base
            .join(&relative)
            .map_err(|error| invalid(&self.base, InvalidAnswer::Path { relative, error }))
    }
}

/// `packageHashAuthentication`: at least one preferred hash must match; if the mirror
/// gave hashes but none in a preferred scheme, nothing can be checked, which is an error.
fn verify(archive: &Archive, h1: &Hash, zh: &Hash) -> Result<(), MirrorError> {
    let preferred: Vec<&Hash> = archive.hashes.iter().filter(|h| h.is_preferred()).collect();
    if preferred.is_empty() {
        return Err(MirrorError::Uncheckable {
            url: archive.url.clone(),
        });
    }
    if preferred.iter().any(|h| *h == h1 || *h == zh) {
        return Ok(());
    }
    Err(MirrorError::Mismatch(Box::new(Mismatch {
        url: archive.url.clone(),
        listed: preferred.into_iter().cloned().collect(),
        h1: h1.clone(),
        zh: zh.clone(),
    })))
}

fn parse_base(base: &str) -> Result<Url, MirrorError> {
    let mut url = Url::parse(base).map_err(|error| MirrorError::BadUrl {
        given: base.to_string(),
        error,
    })?;
    if url.cannot_be_a_base() {
        return Err(MirrorError::NotHierarchical {
            given: base.to_string(),
        });
    }
    if !url.path().ends_with('/') {
        let path = format!("{}/", url.path());
        url.set_path(&path);
    }
    Ok(url)
}

fn invalid(url: &Url, problem: InvalidAnswer) -> MirrorError {
    MirrorError::Invalid {
        url: tfsum_vocab::url::SafeUrl::new(url),
        problem,
    }
}

fn json(url: &Url, error: serde_json::Error) -> MirrorError {
    invalid(url, InvalidAnswer::Json(Arc::new(error)))
}
