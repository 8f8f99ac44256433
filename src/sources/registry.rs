//! The origin registry as a package source: version lists, and the hashes of each unique
//! (provider, version) package, fetched and verified at most once per run and usually not
//! at all.
//!
//! For a package it needs, per requested platform, the `h1:` of the unpacked zip, and once
//! per version the `zh:` lines of the signed SHA256SUMS (spec §5.4–5.5). It answers from
//! the persistent [`Cache`] first. What is missing it fetches: the download JSON per
//! platform, SHA256SUMS and its signature once per document URL, and each platform's zip as
//! a stream that is hashed while it arrives ([`crate::download`]). Checks, in Terraform's
//! order: the SHA256SUMS entry for the file equals the registry's `shasum`, the zip's
//! sha256 equals it, and the signature verifies against a key the registry supplied.
//! Nothing unverified reaches the cache or a lock file.
//!
//! Version lists come from the cache while younger than the TTL (any age when offline),
//! else from the registry, and are cached. The plan of unique packages is built before
//! anything is asked, so each package is requested once; downloads are bounded by the
//! run's job semaphore, requests per host by the transport.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use std::time::Duration;

use tokio::sync::Semaphore;

use crate::addr::{Platform, ProviderAddr, OPENTOFU_REGISTRY};
use crate::cache::{parse_hashes, Cache, PlatformEntry, SumLine, SumsEntry};
use crate::download::download_and_hash;
use crate::hash::signature::{verify_sums, SigningKey};
use crate::hash::sums::ShaSums;
use crate::hash::zipstream::ZipLimits;
use crate::hash::Hash;
use crate::progress::Progress;
use crate::registry::client::PlatformHashes;
use crate::registry::{PackageMeta, RegistryClient, RegistryError};

use super::{VersionsError, VersionsFound};
use crate::version::Version;

/// Largest SHA256SUMS or signature document accepted.
const MAX_SMALL_DOCUMENT: usize = 4 << 20;

/// Why a package's hashes could not be established. Always names the package
/// (provider, version and, where one is involved, platform).
#[derive(Debug, Clone, thiserror::Error)]
#[error("{package}: {reason}")]
pub struct PackageError {
    pub package: String,
    pub reason: String,
}

/// Counters for the run summary and the benchmark.
#[derive(Debug, Default, Clone)]
pub struct RegistryStats {
    pub packages_from_cache: u64,
    pub packages_downloaded: u64,
    pub zip_bytes_downloaded: u64,
    pub sums_fetched: u64,
}

/// Options of the index.
#[derive(Debug, Clone)]
pub struct IndexOptions {
    pub jobs: usize,
    pub per_host: usize,
    pub offline: bool,
    /// Bounds on each package, uncompressed; the download itself is cut off at
    /// [`max_download_bytes`] of them.
    pub zip_limits: ZipLimits,
}

/// How the registry source behaves; plain values from the settings.
#[derive(Debug, Clone)]
pub struct RegistryOptions {
    pub offline: bool,
    /// How long a cached version list stays fresh (ignored offline: any age will do).
    pub versions_ttl: Duration,
    /// Bounds on each package, uncompressed; the download itself is cut off at
    /// [`crate::download::max_download_bytes`] of them.
    pub zip_limits: ZipLimits,
}

/// Each provider's own registry, through the cache.
pub struct RegistrySource {
    client: Option<RegistryClient>,
    cache: Cache,
    options: RegistryOptions,
    /// The run's download slots (`--jobs`), shared with the other sources.
    jobs: Arc<Semaphore>,
    stats: std::sync::Mutex<RegistryStats>,
    progress: Arc<dyn Progress>,
}

impl std::fmt::Debug for RegistrySource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RegistrySource")
            .field("options", &self.options)
            .finish()
    }
}

impl RegistrySource {
    /// `client` is `None` when running offline.
    pub fn new(
        client: Option<RegistryClient>,
        cache: Cache,
        options: RegistryOptions,
        jobs: Arc<Semaphore>,
        progress: Arc<dyn Progress>,
    ) -> RegistrySource {
        RegistrySource {
            client,
            cache,
            options,
            jobs,
            progress,
            stats: std::sync::Mutex::new(RegistryStats::default()),
        }
    }

    pub fn stats(&self) -> RegistryStats {
        self.stats.lock().map(|s| s.clone()).unwrap_or_default()
    }

    /// The provider's versions as the registry lists them: from the cache while fresh,
    /// else fetched and cached.
    pub async fn versions(&self, addr: &ProviderAddr) -> Result<VersionsFound, VersionsError> {
        let ttl = if self.options.offline {
            Duration::MAX
        } else {
            self.options.versions_ttl
        };
        if let Some(versions) = self.cache.versions(addr, ttl) {
            return Ok(VersionsFound {
                versions,
                warnings: Vec::new(),
            });
        }
        let Some(client) = self.client.as_ref().filter(|_| !self.options.offline) else {
            return Err(VersionsError {
                message: format!("offline, and the cache holds no version list for {addr}"),
                not_found: false,
            });
        };
        match client.versions(addr).await {
            Ok(list) => {
                let raw: Vec<String> = list.versions.iter().map(|v| v.version.clone()).collect();
                self.cache.put_versions(addr, &raw);
                Ok(VersionsFound {
                    versions: raw,
                    warnings: list.warnings,
                })
            }
            Err(e) => Err(VersionsError {
                not_found: matches!(e, RegistryError::ProviderNotFound { .. }),
                message: e.to_string(),
            }),
        }
    }

    /// All hashes a lock entry for this package gets for `platforms`: one `h1:` per
    /// platform plus every signed `zh:` line. `use_packages_map` allows OpenTofu's `packages`
    /// map to stand in for downloads, which only `tofu init` does (spec §10).
    pub async fn package_hashes(
        &self,
        provider: &ProviderAddr,
        version: &Version,
        platforms: &[Platform],
        use_packages_map: bool,
    ) -> Result<BTreeSet<Hash>, PackageError> {
        let v = &version.to_string();
        let err = |platform: Option<&Platform>, reason: String| PackageError {
            package: match platform {
                Some(p) => format!("{provider} {version} ({p})"),
                None => format!("{provider} {version}"),
            },
            reason,
        };

        // A cached fact whose hashes do not parse is as good as missing.
        let cached_sums = self
            .cache
            .sums(provider, v)
            .filter(|sums| parse_hashes(&sums.zh).is_some());
        let mut entries = Vec::new();
        let mut missing = Vec::new();
        for platform in platforms {
            match self.cache.platform(provider, v, platform) {
                Some(entry) if parse_hashes([&entry.h1, &entry.zh]).is_some() => {
                    entries.push(entry)
                }
                _ => missing.push(platform.clone()),
            }
        }
        let hits = (platforms.len() - missing.len()) as u64;
        self.bump(|s| s.packages_from_cache += hits);
        if let (Some(sums), true) = (&cached_sums, missing.is_empty()) {
            self.progress.cache_hit(&format!("{provider} {version}"));
            return Ok(finish(&entries, sums));
        }
        let client = match (&self.client, self.options.offline) {
            (Some(client), false) => client,
            _ => {
                let what = if missing.is_empty() {
                    "its signed SHA256SUMS".to_string()
                } else {
                    let names: Vec<String> = missing.iter().map(|p| p.to_string()).collect();
                    format!("the package for {}", names.join(", "))
                };
                return Err(err(
                    None,
                    format!("offline, and the cache does not hold {what}"),
                ));
            }
        };

        // The download document of each missing platform; if only the sums are missing,
        // any requested platform's document names them.
        let meta_platforms: Vec<&Platform> = if missing.is_empty() {
            platforms.iter().take(1).collect()
        } else {
            missing.iter().collect()
        };
        let fetch_meta = |p: Platform| async move {
            client
                .package(provider, v, &p)
                .await
                .map_err(|e| err(Some(&p), e.to_string()))
        };
        let Some((&first, rest)) = meta_platforms.split_first() else {
            return Err(err(None, "no platform was requested".to_string()));
        };
        let first_meta = fetch_meta(first.clone()).await?;
        check_protocols(&first_meta).map_err(|reason| err(Some(first), reason))?;
        // An OpenTofu registry's first document may describe every platform (spec §10);
        // with signed sums to vouch for it, one download then stands for all.
        let mut sums = None;
        let mut packages_map = None;
        if use_packages_map && first_meta.packages.is_some() && missing.len() > 1 {
            let entry = self
                .sums_for(client, provider, v, cached_sums.clone(), &first_meta)
                .await
                .map_err(|reason| err(Some(first), reason))?;
            packages_map = usable_packages_map(&first_meta, &missing, &entry);
            sums = Some(entry);
        }
        let rest: &[&Platform] = if packages_map.is_some() { &[] } else { rest };
        let rest_metas =
            futures::future::join_all(rest.iter().map(|p| fetch_meta((*p).clone()))).await;
        let mut metas: Vec<(&Platform, PackageMeta)> = vec![(first, first_meta.clone())];
        for (p, m) in rest.iter().zip(rest_metas) {
            metas.push((p, m?));
        }

        let sums = match sums {
            Some(sums) => sums,
            None => self
                .sums_for(client, provider, v, cached_sums, &metas[0].1)
                .await
                .map_err(|reason| err(Some(metas[0].0), reason))?,
        };

        let sums_ref = &sums;
        let downloads =
            metas
                .iter()
                .filter(|(p, _)| missing.contains(p))
                .map(|(platform, meta)| async move {
                    verify_listed(sums_ref, meta).map_err(|reason| err(Some(platform), reason))?;
                    let label = format!("{provider} {version} {platform}");
                    let result = self.download(client, meta, &label).await;
                    self.progress.download_finished(&label, result.is_ok());
                    let entry = result.map_err(|reason| err(Some(platform), reason))?;
                    self.cache.put_platform(provider, v, platform, &entry);
                    Ok::<_, PackageError>(entry)
                });
        for result in futures::future::join_all(downloads).await {
            entries.push(result?);
        }
        if let (Some(map), Some(downloaded)) = (packages_map, entries.last()) {
            let others = entries_from_map(map, first, downloaded, &missing)
                .map_err(|reason| err(Some(first), reason))?;
            for (platform, entry) in others {
                self.cache.put_platform(provider, v, platform, &entry);
                entries.push(entry);
            }
        }
        Ok(finish(&entries, &sums))
    }

    /// The verified sums: from the cache, else fetched from `meta`'s URLs and cached.
    async fn sums_for(
        &self,
        client: &RegistryClient,
        provider: &ProviderAddr,
        version: &str,
        cached: Option<SumsEntry>,
        meta: &PackageMeta,
    ) -> Result<SumsEntry, String> {
        if let Some(sums) = cached {
            return Ok(sums);
        }
        let entry = self.fetch_sums(client, provider, meta).await?;
        self.cache.put_sums(provider, version, &entry);
        Ok(entry)
    }

    /// Fetches SHA256SUMS and its signature and verifies the signature against the
    /// keys the registry supplied (spec §5.4 step 3).
    async fn fetch_sums(
        &self,
        client: &RegistryClient,
        provider: &ProviderAddr,
        meta: &PackageMeta,
    ) -> Result<SumsEntry, String> {
        let document = client
            .http()
            .get_bytes(&meta.shasums_url, MAX_SMALL_DOCUMENT)
            .await
            .map_err(|e| e.to_string())?;
        // OpenTofu's registry publishes no key for some providers, and OpenTofu then
        // skips the signature check and takes the registry's checksums as they are
        // (spec §10). Only that host gets this exception; everywhere else a valid
        // signature from a registry-supplied key is required, as in Terraform.
        if meta.signing_keys.is_empty() && provider.hostname.as_str() == OPENTOFU_REGISTRY {
            self.bump(|s| s.sums_fetched += 1);
            return Ok(sums_entry(
                &document,
                "unsigned: registry.opentofu.org lists no signing key".to_string(),
                String::new(),
            ));
        }
        let signature = client
            .http()
            .get_bytes(&meta.shasums_signature_url, MAX_SMALL_DOCUMENT)
            .await
            .map_err(|e| e.to_string())?;
        self.bump(|s| s.sums_fetched += 1);
        let keys: Vec<SigningKey> = meta
            .signing_keys
            .iter()
            .map(|(ascii_armor, trust_signature)| SigningKey {
                ascii_armor: ascii_armor.clone(),
                trust_signature: trust_signature.clone(),
            })
            .collect();
        let verified = verify_sums(&document, &signature, &keys).map_err(|e| {
            format!(
                "signature {} of {} does not verify: {e}",
                meta.shasums_signature_url, meta.shasums_url
            )
        })?;
        Ok(sums_entry(
            &document,
            verified.trust.to_string(),
            verified.key_id,
        ))
    }

    /// Downloads a zip and hashes it while it streams, retrying transient failures from
    /// the start.
    async fn download(
        &self,
        client: &RegistryClient,
        meta: &PackageMeta,
        label: &str,
    ) -> Result<PlatformEntry, String> {
        let _job = self.jobs.acquire().await.map_err(|e| e.to_string())?;
        let hashed = download_and_hash(
            client.http(),
            &meta.download_url,
            &self.options.zip_limits,
            self.progress.as_ref(),
            label,
        )
        .await?;
        if hashed.sha256 != meta.shasum {
            return Err(format!(
                "the zip downloaded from {} has sha256 {} but the registry reports {}",
                meta.download_url,
                hex::encode(hashed.sha256),
                hex::encode(meta.shasum)
            ));
        }
        self.bump(|s| {
            s.packages_downloaded += 1;
            s.zip_bytes_downloaded += hashed.bytes;
        });
        Ok(PlatformEntry {
            h1: hashed.h1.to_string(),
            zh: hashed.zh().to_string(),
            size: hashed.bytes,
        })
    }

    fn bump(&self, f: impl FnOnce(&mut RegistryStats)) {
        if let Ok(mut stats) = self.stats.lock() {
            f(&mut stats);
        }
    }
}

/// Terraform (0.15 through today) speaks plugin protocols 5 and 6. A version whose
/// download document lists protocols but none of those cannot be used, and Terraform
/// fails on it rather than choosing an older version (`ErrProtocolNotSupported`, spec
/// §5.3); tfsum refuses to lock it for the same reason. An empty list is accepted.
fn check_protocols(meta: &PackageMeta) -> Result<(), String> {
    let supported = |p: &String| {
        let major = p.split('.').next().unwrap_or("");
        major == "5" || major == "6"
    };
    if meta.protocols.is_empty() || meta.protocols.iter().any(supported) {
        return Ok(());
    }
    Err(format!(
        "this version supports plugin protocols {} only; Terraform and OpenTofu need 5 or 6, so it cannot be used (choose another version with a constraint)",
        meta.protocols.join(", ")
    ))
}

/// The cache entry for a SHA256SUMS document whose origin was checked.
fn sums_entry(document: &[u8], trust: String, key_id: String) -> SumsEntry {
    let sums = ShaSums::parse(document);
    let zh = sums
        .acceptable_hashes()
        .unwrap_or_default()
        .iter()
        .map(Hash::to_string)
        .collect();
    let files = sums
        .files()
        .into_iter()
        .map(|(filename, sha256)| SumLine {
            filename,
            sha256: sha256.map(hex::encode),
        })
        .collect();
    SumsEntry {
        zh,
        files,
        trust,
        key_id,
    }
}

/// What `providers lock` records for a package (spec §5.5): each platform's `h1:` and
/// every signed `zh:` line; when SHA256SUMS did not look like a checksum list, each
/// downloaded zip's own `zh:` instead (Terraform's fallback).
fn finish(entries: &[PlatformEntry], sums: &SumsEntry) -> BTreeSet<Hash> {
    let mut hashes = BTreeSet::new();
    for entry in entries {
        hashes.extend(parse_hashes([&entry.h1]).unwrap_or_default());
        if sums.zh.is_empty() {
            hashes.extend(parse_hashes([&entry.zh]).unwrap_or_default());
        }
    }
    hashes.extend(parse_hashes(&sums.zh).unwrap_or_default());
    hashes
}

/// OpenTofu's `packages` map (spec §10) may stand in for downloading every platform
/// when it covers each missing platform with an `h1:` and a `zh:`, and each of those
/// `zh:` is a line of the SHA256SUMS whose signature verified (`sums.zh` is empty when
/// it did not look like a checksum list). What stays unsigned is each platform's `h1:`,
/// which OpenTofu records on the registry's word too; the one package that is
/// downloaded is checked against the map before any of it is used.
fn usable_packages_map<'m>(
    meta: &'m PackageMeta,
    missing: &[Platform],
    sums: &SumsEntry,
) -> Option<&'m BTreeMap<Platform, PlatformHashes>> {
    let map = meta.packages.as_ref()?;
    let signed = |zh: &Hash| sums.zh.iter().any(|line| line == zh.as_str());
    let covered = missing.iter().all(|p| {
        map.get(p).is_some_and(|entry| {
            entry.first("h1").is_some() && entry.first("zh").is_some_and(signed)
        })
    });
    (covered && !sums.zh.is_empty()).then_some(map)
}

/// Checks the downloaded package against its entry in the map (`zh:`, size and the
/// `h1:` computed while streaming), then reads the other missing platforms' entries.
fn entries_from_map<'p>(
    map: &BTreeMap<Platform, PlatformHashes>,
    downloaded_platform: &Platform,
    downloaded: &PlatformEntry,
    missing: &'p [Platform],
) -> Result<Vec<(&'p Platform, PlatformEntry)>, String> {
    let entry = |p: &Platform| -> Result<PlatformEntry, String> {
        let e = map
            .get(p)
            .ok_or_else(|| format!("the registry's packages map has no entry for {p}"))?;
        let (Some(h1), Some(zh)) = (e.first("h1"), e.first("zh")) else {
            return Err(format!(
                "the registry's packages map lacks h1: or zh: for {p}"
            ));
        };
        Ok(PlatformEntry {
            h1: h1.to_string(),
            zh: zh.to_string(),
            size: e.package_size.unwrap_or(0),
        })
    };
    let claimed = entry(downloaded_platform)?;
    let size_ok = map
        .get(downloaded_platform)
        .and_then(|e| e.package_size)
        .is_none_or(|size| size == downloaded.size);
    if claimed.h1 != downloaded.h1 || claimed.zh != downloaded.zh || !size_ok {
        return Err(format!(
            "the registry's packages map disagrees with the package downloaded for {downloaded_platform}: it says {} {} ({} bytes), the package has {} {} ({} bytes)",
            claimed.h1, claimed.zh, claimed.size, downloaded.h1, downloaded.zh, downloaded.size
        ));
    }
    missing
        .iter()
        .filter(|p| *p != downloaded_platform)
        .map(|p| entry(p).map(|e| (p, e)))
        .collect()
}

/// The SHA256SUMS entry for the file must equal the registry's `shasum` (spec §5.4
/// step 1).
fn verify_listed(sums: &SumsEntry, meta: &PackageMeta) -> Result<(), String> {
    let want = hex::encode(meta.shasum);
    match sums.entry(&meta.filename) {
        Some(Some(listed)) if listed == want => Ok(()),
        Some(Some(listed)) => Err(format!(
            "SHA256SUMS from {} lists {listed} for {}, but the registry reports shasum {want}",
            meta.shasums_url, meta.filename
        )),
        Some(None) => Err(format!(
            "SHA256SUMS from {} has an invalid checksum for {}",
            meta.shasums_url, meta.filename
        )),
        None => Err(format!(
            "SHA256SUMS from {} has no entry for {}",
            meta.shasums_url, meta.filename
        )),
    }
}
