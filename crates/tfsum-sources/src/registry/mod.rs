//! The origin registry as a package source: version lists, and the hashes of each unique
//! (provider, version) package, fetched and verified at most once per run and usually not
//! at all.
//!
//! For a package it needs, per requested platform, the `h1:` of the unpacked zip, and once
//! per version the `zh:` lines of the signed SHA256SUMS (spec §5.4–5.5). It answers from
//! the persistent [`Cache`] first. What is missing it fetches: the download JSON per
//! platform, SHA256SUMS and its signature once per document URL, and each platform's zip as
//! a stream that is hashed while it arrives ([`tfsum_net::download`]). Checks, in Terraform's
//! order: the SHA256SUMS entry for the file equals the registry's `shasum`, the zip's
//! sha256 equals it, and the signature verifies against a key the registry supplied.
//! Nothing unverified reaches the cache or a lock file.
//!
//! Version lists come from the cache while younger than the TTL (any age when offline),
//! else from the registry, and are cached. The plan of unique packages is built before
//! anything is asked, so each package is requested once; downloads are bounded by the
//! run's job semaphore, requests per host by the transport.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use std::time::Duration;

use tokio::sync::{OnceCell, Semaphore};

use tfsum_disk::cache::{Cache, Origin, PlatformEntry, SignedSums};
use tfsum_net::download::{download_and_hash, download_hash_and_keep};
use tfsum_net::registry::client::{PlatformHashes, VersionList};
use tfsum_net::registry::{PackageMeta, RegistryClient, RegistryError};
use tfsum_net::shared_store::SharedWarning;
use tfsum_vocab::addr::{Platform, PlatformPackage, ProviderAddr, OPENTOFU_REGISTRY};
use tfsum_vocab::hash::zipstream::{ZipHashes, ZipLimits};
use tfsum_vocab::hash::Hash;
use tfsum_vocab::progress::Progress;

use super::error::{
    Disagreement, MapEntry, PackageError, PackageProblem, PackagesMapError, VersionsError,
};
use super::kept::KeptPackages;
use super::{HashOrigin, PackageHashes, Provenance, SignedChecksums, VersionsFound};

pub mod shared;
mod sums;

use shared::{SharedCache, SharedPlatform, SharedSums};
use sums::VerifiedSums;
use tfsum_vocab::version::Version;

/// Largest SHA256SUMS or signature document accepted.
const MAX_SMALL_DOCUMENT: usize = 4 << 20;

/// Counters for the run summary and the benchmark.
#[derive(Debug, Default, Clone)]
pub struct RegistryStats {
    pub packages_from_cache: u64,
    pub packages_downloaded: u64,
    pub zip_bytes_downloaded: u64,
    pub sums_fetched: u64,
    /// Whether a shared cache was configured, and what it gave, took and refused.
    pub shared: Option<SharedStats>,
}

/// The shared cache's counters for the run summary.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct SharedStats {
    /// Platform packages whose `h1:` came from the shared cache.
    pub read: u64,
    /// Objects written to it.
    pub written: u64,
    /// Objects refused (signature, or content that does not check out).
    pub rejected: u64,
}

/// How the registry source behaves; plain values from the settings.
#[derive(Debug, Clone)]
pub struct RegistryOptions {
    pub offline: bool,
    /// How long a cached version list stays fresh (ignored offline: any age will do).
    pub versions_ttl: Duration,
    /// Bounds on each package, uncompressed; the download itself is cut off at
    /// [`tfsum_net::download::max_download_bytes`] of them.
    pub zip_limits: ZipLimits,
}

/// A provider's version list as the registry answered it, once per run.
type Listing = Arc<OnceCell<Result<VersionList, RegistryError>>>;

/// Each provider's own registry, through the cache.
pub struct RegistrySource {
    client: Option<RegistryClient>,
    cache: Cache,
    options: RegistryOptions,
    /// The run's download slots (`--jobs`), shared with the other sources.
    jobs: Arc<Semaphore>,
    stats: Mutex<RegistryStats>,
    /// Each provider's version list, fetched at most once per run however many callers
    /// (versions, published platforms) ask at the same time.
    listings: Mutex<HashMap<ProviderAddr, Listing>>,
    progress: Arc<dyn Progress>,
    /// The organisation's shared cache, between the local cache and the registry.
    shared: Option<Arc<SharedCache>>,
    /// Where downloaded zips are kept for installing (`lock --mirror`).
    kept: Option<Arc<KeptPackages>>,
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
            stats: Mutex::new(RegistryStats::default()),
            listings: Mutex::new(HashMap::new()),
            shared: None,
            kept: None,
        }
    }

    /// The same source, keeping every zip it downloads and verifies in `kept`.
    pub fn keeping(self, kept: Arc<KeptPackages>) -> RegistrySource {
        RegistrySource {
            kept: Some(kept),
            ..self
        }
    }

    /// The same source, reading (and, with a writer key, filling) a shared cache on a
    /// local miss.
    pub fn with_shared(self, shared: Arc<SharedCache>) -> RegistrySource {
        RegistrySource {
            shared: Some(shared),
            ..self
        }
    }

    /// The shared cache, unless the run is offline.
    fn shared(&self) -> Option<&SharedCache> {
        self.shared.as_deref().filter(|_| !self.options.offline)
    }

    /// The provider's version list from the registry, fetched once per run: callers
    /// asking at the same time share the one request.
    async fn listing(
        &self,
        client: &RegistryClient,
        addr: &ProviderAddr,
    ) -> Result<VersionList, RegistryError> {
        let cell = {
            let mut cells = match self.listings.lock() {
                Ok(cells) => cells,
                Err(poisoned) => poisoned.into_inner(),
            };
            cells.entry(addr.clone()).or_default().clone()
        };
        cell.get_or_init(|| client.versions(addr)).await.clone()
    }

    pub(crate) fn stats(&self) -> RegistryStats {
        let mut stats = self.stats.lock().map(|s| s.clone()).unwrap_or_default();
        stats.shared = self.shared.as_deref().map(|shared| {
            let counts = shared.counts();
            let get =
                |n: &std::sync::atomic::AtomicU64| n.load(std::sync::atomic::Ordering::Relaxed);
            SharedStats {
                read: get(&counts.read),
                written: get(&counts.written),
                rejected: get(&counts.rejected),
            }
        });
        stats
    }

    /// What went wrong with the shared cache, for the run's warnings.
    pub(crate) fn shared_warnings(&self) -> Vec<SharedWarning> {
        self.shared
            .as_deref()
            .map(SharedCache::warnings)
            .unwrap_or_default()
    }

    /// The provider's versions as the registry lists them: from the cache while fresh,
    /// else fetched and cached.
    pub(crate) async fn versions(
        &self,
        addr: &ProviderAddr,
    ) -> Result<VersionsFound, VersionsError> {
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
            return Err(VersionsError::Offline {
                provider: addr.clone(),
            });
        };
        let list = self
            .listing(client, addr)
            .await
            .map_err(VersionsError::Registry)?;
        let raw: Vec<String> = list.versions.iter().map(|v| v.version.clone()).collect();
        self.cache.put_versions(addr, &raw);
        Ok(VersionsFound {
            versions: raw,
            warnings: list.warnings,
        })
    }

    /// All hashes a lock entry for this package gets for `platforms`: one `h1:` per
    /// platform plus every signed `zh:` line. `use_packages_map` allows OpenTofu's
    /// `packages` map to stand in for downloads, which only `tofu init` does (spec §10).
    pub(crate) async fn package_hashes(
        &self,
        provider: &ProviderAddr,
        version: &Version,
        platforms: &[Platform],
        use_packages_map: bool,
    ) -> Result<PackageHashes, PackageError> {
        let package = Package {
            provider,
            version,
            v: version.to_string(),
        };
        let mut cached = self.cached(&package, platforms, use_packages_map);
        if let Some(shared) = self.shared() {
            if shared.fills() {
                self.fill_shared(shared, &package, &cached).await;
            }
            if cached.sums.is_none() || !cached.missing.is_empty() {
                self.complete_from_shared(shared, &package, &mut cached)
                    .await;
            }
        }
        if let (Some(sums), true) = (&cached.sums, cached.missing.is_empty()) {
            self.count_cache_hits(&cached.entries);
            self.progress.cache_hit(&format!("{provider} {version}"));
            return Ok(finish(&cached.entries, sums, cached.sums_provenance));
        }
        let client = match (&self.client, self.options.offline) {
            (Some(client), false) => client,
            _ => {
                let missing = cached.missing;
                return Err(package.error(None, PackageProblem::Offline { missing }));
            }
        };
        let fetched = self
            .fetch(client, &package, cached, platforms, use_packages_map)
            .await?;
        self.count_cache_hits(&fetched.entries);
        Ok(finish(
            &fetched.entries,
            &fetched.sums,
            fetched.sums_provenance,
        ))
    }

    /// The platforms the version's signed SHA256SUMS lists packages for, for `tfsum
    /// verify`.
    pub(crate) async fn published_platforms(
        &self,
        provider: &ProviderAddr,
        version: &Version,
    ) -> Result<Vec<Platform>, PackageError> {
        let sums = self.verified_sums(provider, version).await?;
        Ok(sums.platforms(&provider.r#type, &version.to_string()))
    }

    /// The version's signed SHA256SUMS as [`SignedChecksums`]: for an OCI mirror's
    /// blobs, which must be the origin's packages, and for `tfsum mirror --layout oci`,
    /// which checks what a registry already holds without downloading it.
    pub(crate) async fn signed_checksums(
        &self,
        provider: &ProviderAddr,
        version: &Version,
    ) -> Result<SignedChecksums, PackageError> {
        let sums = self.verified_sums(provider, version).await?;
        Ok(SignedChecksums {
            zh: sums.zh,
            files: sums.files,
        })
    }

    /// The version's SHA256SUMS, verified: from the cache (verified again), else
    /// fetched and verified through the download document of the first platform the
    /// registry lists for the version.
    async fn verified_sums(
        &self,
        provider: &ProviderAddr,
        version: &Version,
    ) -> Result<VerifiedSums, PackageError> {
        let package = Package {
            provider,
            version,
            v: version.to_string(),
        };
        if let Some(sums) = self.cached_sums(&package) {
            return Ok(sums);
        }
        let client = match (&self.client, self.options.offline) {
            (Some(client), false) => client,
            _ => {
                let missing = Vec::new();
                return Err(package.error(None, PackageProblem::Offline { missing }));
            }
        };
        let list = self
            .listing(client, provider)
            .await
            .map_err(|e| package.error(None, PackageProblem::Registry(e)))?;
        let probe = list
            .versions
            .iter()
            .filter(|v| Version::parse(&v.version).is_ok_and(|v| v == *version))
            .flat_map(|v| &v.platforms)
            .find_map(|p| format!("{}_{}", p.os, p.arch).parse::<Platform>().ok())
            .ok_or_else(|| package.error(None, PackageProblem::NoPlatformListed))?;
        let meta = self.meta(client, &package, &probe).await?;
        self.fetch_sums(client, &package, &meta, false)
            .await
            .map_err(|problem| package.error(Some(&probe), problem))
    }

    /// Downloads the package for one platform into `into` (emptied first), checked as
    /// [`Self::package_hashes`] checks a download: the signed SHA256SUMS lists the
    /// registry's checksum for the file, and the zip's SHA-256 is that checksum. The
    /// `h1:` computed on the way is cached like any download's. For `tfsum mirror`.
    pub(crate) async fn fetch_package(
        &self,
        wanted: PlatformPackage<'_>,
        into: &std::fs::File,
    ) -> Result<ZipHashes, PackageError> {
        let PlatformPackage {
            provider,
            version,
            platform,
        } = wanted;
        let package = Package {
            provider,
            version,
            v: version.to_string(),
        };
        let client = match (&self.client, self.options.offline) {
            (Some(client), false) => client,
            _ => {
                let missing = vec![platform.clone()];
                return Err(package.error(None, PackageProblem::Offline { missing }));
            }
        };
        let fail = |problem| package.error(Some(platform), problem);
        let meta = self.meta(client, &package, platform).await?;
        check_protocols(&meta).map_err(fail)?;
        let cached = self
            .cache
            .sums(provider, &package.v)
            .and_then(|signed| sums::verify(provider, &signed).ok());
        let sums = match cached {
            Some(sums) => sums,
            None => self
                .fetch_sums(client, &package, &meta, false)
                .await
                .map_err(fail)?,
        };
        sums.vouches_for(&meta)
            .map_err(|e| fail(PackageProblem::Unvouched(e)))?;
        let label = wanted.to_string();
        let hashed = {
            let _job = self
                .jobs
                .acquire()
                .await
                .map_err(|_| fail(PackageProblem::Cancelled))?;
            download_hash_and_keep(
                client.http(),
                &meta.download_url,
                &self.options.zip_limits,
                self.progress.as_ref(),
                &label,
                into,
            )
            .await
        };
        self.progress.download_finished(&label, hashed.is_ok());
        let hashed = hashed.map_err(|error| {
            fail(PackageProblem::Download {
                url: meta.download_url.clone(),
                error: Box::new(error),
            })
        })?;
        if hashed.sha256 != meta.shasum {
            return Err(fail(PackageProblem::Checksum {
                url: Box::new(meta.download_url.clone()),
                got: hashed.sha256,
                reported: meta.shasum,
            }));
        }
        self.bump(|s| {
            s.packages_downloaded += 1;
            s.zip_bytes_downloaded += hashed.bytes;
        });
        let entry = PlatformEntry {
            h1: hashed.h1.to_string(),
            zh: hashed.zh().to_string(),
            size: hashed.bytes,
            origin: Origin::Download,
        };
        self.cache
            .put_platform(provider, &package.v, platform, &entry);
        Ok(hashed)
    }

    /// What the cache holds for `package`: the verified sums, and the platforms it has an
    /// entry for (an entry from OpenTofu's `packages` map counts only where the map may
    /// be used); the rest are missing.
    fn cached(&self, package: &Package, platforms: &[Platform], use_packages_map: bool) -> Found {
        let mut found = Found {
            sums: self.cached_sums(package),
            sums_provenance: Provenance::Cache,
            entries: Vec::new(),
            missing: Vec::new(),
            shared: SharedFound::default(),
        };
        for platform in platforms {
            let entry = self
                .cache
                .platform(package.provider, &package.v, platform)
                .filter(|e| use_packages_map || e.origin == Origin::Download)
                .filter(|e| parse_hashes([&e.h1, &e.zh]).is_some());
            match entry {
                Some(entry) => found.entries.push(Got {
                    platform: platform.clone(),
                    entry,
                    provenance: Provenance::Cache,
                }),
                None => found.missing.push(platform.clone()),
            }
        }
        if let Some(sums) = found.sums.take() {
            self.vet(package, &sums, &mut found);
            found.sums = Some(sums);
        }
        found
    }

    /// The cached SHA256SUMS of `package`, verified again; one that does not verify is
    /// refused (counted for the run's warning) and fetched again.
    fn cached_sums(&self, package: &Package<'_>) -> Option<VerifiedSums> {
        let signed = self.cache.sums(package.provider, &package.v)?;
        match sums::verify(package.provider, &signed) {
            Ok(verified) => Some(verified),
            Err(e) => {
                let reason = format!("its SHA256SUMS does not verify: {e}");
                self.cache
                    .refuse_sums(package.provider, &package.v, &reason);
                None
            }
        }
    }

    /// Refuses the cached platform entries whose `zh:` is not a line of the version's
    /// verified SHA256SUMS: the entry's file names its package, but a copy with its name
    /// rewritten would still hold another package's hashes (issue 34). They become
    /// missing and are fetched again. Entries read before the sums were known are
    /// checked once they are; a SHA256SUMS that is no checksum list (Terraform's
    /// fallback) lists nothing to check against.
    fn vet(&self, package: &Package<'_>, sums: &VerifiedSums, found: &mut Found) {
        if sums.zh.is_empty() {
            return;
        }
        let (kept, refused): (Vec<Got>, Vec<Got>) = std::mem::take(&mut found.entries)
            .into_iter()
            .partition(|got| got.provenance != Provenance::Cache || sums.lists(&got.entry.zh));
        found.entries = kept;
        for got in refused {
            let reason = format!(
                "its zh: is not a line of the signed SHA256SUMS of {}",
                package.label()
            );
            self.cache
                .refuse_platform(package.provider, &package.v, &got.platform, &reason);
            found.missing.push(got.platform);
        }
    }

    /// Fetches what the cache lacks: the download document of each missing platform (if
    /// only the sums are missing, of the first platform), the sums, and the packages, each
    /// checked before it is cached.
    async fn fetch(
        &self,
        client: &RegistryClient,
        package: &Package<'_>,
        mut found: Found,
        platforms: &[Platform],
        use_packages_map: bool,
    ) -> Result<Complete, PackageError> {
        let first = match found.missing.first().or(platforms.first()) {
            Some(first) => first.clone(),
            None => return Err(package.error(None, PackageProblem::NoPlatformRequested)),
        };
        let first = &first;
        let first_meta = self.meta(client, package, first).await?;
        check_protocols(&first_meta).map_err(|problem| package.error(Some(first), problem))?;
        let shared_sums = found
            .shared
            .unvouched_sums
            .take()
            .filter(|_| found.sums.is_none())
            .and_then(|signed| self.check_shared_sums(package, signed, &first_meta));
        let (sums, sums_provenance) = match (found.sums.take(), shared_sums) {
            (Some(sums), _) => (sums, found.sums_provenance),
            (None, Some(sums)) => (sums, Provenance::SharedCache),
            (None, None) => (
                self.fetch_sums(client, package, &first_meta, found.shared.refused_sums)
                    .await
                    .map_err(|problem| package.error(Some(first), problem))?,
                Provenance::SignedSums,
            ),
        };
        self.vet(package, &sums, &mut found);
        // An OpenTofu registry's first document may describe every platform (spec §10);
        // with signed sums to vouch for it, one download then stands for all.
        let map = use_packages_map
            .then(|| usable_packages_map(&first_meta, &found.missing, &sums))
            .flatten();
        let rest: Vec<&Platform> = match map {
            Some(_) => Vec::new(),
            None => found.missing.iter().filter(|p| *p != first).collect(),
        };
        let rest_metas =
            futures::future::join_all(rest.iter().map(|p| self.meta(client, package, p))).await;
        let mut metas: Vec<(&Platform, PackageMeta)> = vec![(first, first_meta.clone())];
        for (p, meta) in rest.iter().zip(rest_metas) {
            metas.push((p, meta?));
        }
        let to_download = metas.iter().filter(|(p, _)| found.missing.contains(p));
        let refused = &found.shared.refused_platforms;
        let downloads = futures::future::join_all(to_download.map(|(platform, meta)| {
            let replace = refused.contains(platform);
            self.download(client, package, &sums, platform, meta, replace)
        }));
        for got in downloads.await {
            found.entries.push(got?);
        }
        if let (Some(map), Some(downloaded)) = (map, found.entries.last()) {
            let others = entries_from_map(map, first, &downloaded.entry, &found.missing)
                .map_err(|e| package.error(Some(first), PackageProblem::PackagesMap(e)))?;
            for (platform, entry) in others {
                self.cache
                    .put_platform(package.provider, &package.v, platform, &entry);
                found.entries.push(Got {
                    platform: platform.clone(),
                    entry,
                    provenance: Provenance::PackagesMap,
                });
            }
        }
        Ok(Complete {
            entries: found.entries,
            sums,
            sums_provenance,
        })
    }

    /// Completes `found` from the shared cache: the SHA256SUMS if the local cache lacks
    /// it (believed now if a trusted writer signed it, else kept to check against the
    /// registry's keys), then each missing platform's `h1:` that a trusted writer signed
    /// and the verified SHA256SUMS lists. What is believed is stored locally.
    async fn complete_from_shared(
        &self,
        shared: &SharedCache,
        package: &Package<'_>,
        found: &mut Found,
    ) {
        if found.sums.is_none() {
            match shared.sums(package.provider, &package.v).await {
                SharedSums::Vouched(signed) => match sums::verify(package.provider, &signed) {
                    Ok(verified) => {
                        self.cache.put_sums(package.provider, &package.v, &signed);
                        self.vet(package, &verified, found);
                        found.sums = Some(verified);
                        found.sums_provenance = Provenance::SharedCache;
                    }
                    Err(e) => {
                        shared.refuse(&package.label(), &format!("its SHA256SUMS: {e}"));
                        found.shared.refused_sums = true;
                    }
                },
                SharedSums::Unvouched(signed) => found.shared.unvouched_sums = Some(signed),
                SharedSums::None { refused } => found.shared.refused_sums = refused,
            }
        }
        let Some(sums) = found.sums.as_ref().filter(|_| shared.reads_h1()) else {
            return;
        };
        let asked = futures::future::join_all(
            found
                .missing
                .iter()
                .map(|p| shared.platform(package.provider, &package.v, p)),
        )
        .await;
        let mut missing = Vec::new();
        for (platform, answer) in std::mem::take(&mut found.missing).into_iter().zip(asked) {
            match answer {
                SharedPlatform::Vouched(entry)
                    if sums.lists(&entry.zh) && parse_hashes([&entry.h1, &entry.zh]).is_some() =>
                {
                    shared.count_read();
                    self.cache
                        .put_platform(package.provider, &package.v, &platform, &entry);
                    found.entries.push(Got {
                        platform,
                        entry,
                        provenance: Provenance::SharedCache,
                    });
                }
                SharedPlatform::Vouched(_) => {
                    let what = format!("{} {platform}", package.label());
                    shared.refuse(&what, "its zh: is not a line of the signed SHA256SUMS");
                    found.shared.refused_platforms.push(platform.clone());
                    missing.push(platform);
                }
                SharedPlatform::None { refused } => {
                    if refused {
                        found.shared.refused_platforms.push(platform.clone());
                    }
                    missing.push(platform);
                }
            }
        }
        found.missing = missing;
    }

    /// Writes what the local cache had for `package` to the shared cache
    /// (`--fill-shared-cache`); a store that has it already keeps its copy.
    async fn fill_shared(&self, shared: &SharedCache, package: &Package<'_>, found: &Found) {
        // Entries are checked against the verified sums only: without them, none goes.
        if found.sums.is_none() {
            return;
        }
        if let Some(signed) = self.cache.sums(package.provider, &package.v) {
            shared
                .put_sums(package.provider, &package.v, &signed, false)
                .await;
        }
        let puts = found.entries.iter().map(|got| {
            shared.put_platform(
                package.provider,
                &package.v,
                &got.platform,
                &got.entry,
                false,
            )
        });
        futures::future::join_all(puts).await;
    }

    /// A SHA256SUMS from the shared cache that no trusted writer signed, believed when its
    /// signature verifies against the keys the registry serves for the package now:
    /// exactly what fetching it would have checked. Stored locally when believed.
    fn check_shared_sums(
        &self,
        package: &Package<'_>,
        mut signed: SignedSums,
        meta: &PackageMeta,
    ) -> Option<VerifiedSums> {
        let shared = self.shared()?;
        signed.keys = meta.signing_keys.clone();
        match sums::verify(package.provider, &signed) {
            Ok(verified) => {
                self.cache.put_sums(package.provider, &package.v, &signed);
                Some(verified)
            }
            Err(e) => {
                let why = format!("its SHA256SUMS does not verify with the registry's keys: {e}");
                shared.refuse(&package.label(), &why);
                None
            }
        }
    }

    /// One platform's download document.
    async fn meta(
        &self,
        client: &RegistryClient,
        package: &Package<'_>,
        platform: &Platform,
    ) -> Result<PackageMeta, PackageError> {
        client
            .package(package.provider, &package.v, platform)
            .await
            .map_err(|e| package.error(Some(platform), PackageProblem::Registry(e)))
    }

    /// Fetches SHA256SUMS and its signature, verifies them (spec §5.4 step 3) and caches
    /// them with the keys, so the cache can verify them again.
    async fn fetch_sums(
        &self,
        client: &RegistryClient,
        package: &Package<'_>,
        meta: &PackageMeta,
        replace_shared: bool,
    ) -> Result<VerifiedSums, PackageProblem> {
        let http = client.http();
        let document = http
            .get_bytes(&meta.shasums_url, MAX_SMALL_DOCUMENT)
            .await
            .map_err(|e| PackageProblem::Registry(e.into()))?;
        // OpenTofu's registry publishes no key for some providers; there is then no
        // signature to fetch (spec §10, and `sums::verify` allows it for that host only).
        let unsigned =
            meta.signing_keys.is_empty() && package.provider.hostname.as_str() == OPENTOFU_REGISTRY;
        let signature = if unsigned {
            bytes::Bytes::new()
        } else {
            http.get_bytes(&meta.shasums_signature_url, MAX_SMALL_DOCUMENT)
                .await
                .map_err(|e| PackageProblem::Registry(e.into()))?
        };
        self.bump(|s| s.sums_fetched += 1);
        let signed = sums::signed(&document, &signature, meta);
        let verified =
            sums::verify(package.provider, &signed).map_err(|error| PackageProblem::Signature {
                sums_url: Box::new(meta.shasums_url.clone()),
                signature_url: Box::new(meta.shasums_signature_url.clone()),
                error,
            })?;
        self.cache.put_sums(package.provider, &package.v, &signed);
        if let Some(shared) = self.shared() {
            shared
                .put_sums(package.provider, &package.v, &signed, replace_shared)
                .await;
        }
        Ok(verified)
    }

    /// Downloads one platform's zip, hashing it while it streams, after checking that the
    /// signed sums vouch for its checksum; caches the result.
    async fn download(
        &self,
        client: &RegistryClient,
        package: &Package<'_>,
        sums: &VerifiedSums,
        platform: &Platform,
        meta: &PackageMeta,
        replace_shared: bool,
    ) -> Result<Got, PackageError> {
        let fail = |reason| package.error(Some(platform), reason);
        sums.vouches_for(meta)
            .map_err(|e| fail(PackageProblem::Unvouched(e)))?;
        let label = format!("{} {} {platform}", package.provider, package.version);
        let keep = (package.provider, package.version, platform);
        let result = self.download_zip(client, meta, &label, keep).await;
        self.progress.download_finished(&label, result.is_ok());
        let entry = result.map_err(fail)?;
        self.cache
            .put_platform(package.provider, &package.v, platform, &entry);
        if let Some(shared) = self.shared() {
            shared
                .put_platform(
                    package.provider,
                    &package.v,
                    platform,
                    &entry,
                    replace_shared,
                )
                .await;
        }
        Ok(Got {
            platform: platform.clone(),
            entry,
            provenance: Provenance::Download,
        })
    }

    /// Downloads a zip and hashes it while it streams, retrying transient failures from
    /// the start; its SHA-256 must be the registry's `shasum`.
    async fn download_zip(
        &self,
        client: &RegistryClient,
        meta: &PackageMeta,
        label: &str,
        (provider, version, platform): (&ProviderAddr, &Version, &Platform),
    ) -> Result<PlatformEntry, PackageProblem> {
        let _job = self
            .jobs
            .acquire()
            .await
            .map_err(|_| PackageProblem::Cancelled)?;
        // With `lock --mirror`, the zip is also written to staging for the install stage;
        // a staging file that cannot be made costs only the second download.
        let keep = self
            .kept
            .as_ref()
            .and_then(|kept| Some((kept, kept.staging_file().ok()?)));
        let (http, url, limits) = (client.http(), &meta.download_url, &self.options.zip_limits);
        let progress = self.progress.as_ref();
        let hashed = match &keep {
            Some((_, file)) => {
                download_hash_and_keep(http, url, limits, progress, label, file.as_file()).await
            }
            None => download_and_hash(http, url, limits, progress, label).await,
        }
        .map_err(|error| PackageProblem::Download {
            url: meta.download_url.clone(),
            error: Box::new(error),
        })?;
        if hashed.sha256 != meta.shasum {
            return Err(PackageProblem::Checksum {
                url: Box::new(meta.download_url.clone()),
                got: hashed.sha256,
                reported: meta.shasum,
            });
        }
        if let Some((kept, file)) = keep {
            kept.put(provider, version, platform, file);
        }
        self.bump(|s| {
            s.packages_downloaded += 1;
            s.zip_bytes_downloaded += hashed.bytes;
        });
        Ok(PlatformEntry {
            h1: hashed.h1.to_string(),
            zh: hashed.zh().to_string(),
            size: hashed.bytes,
            origin: Origin::Download,
        })
    }

    /// Counts the platforms taken from the local cache, once every entry was checked
    /// against the verified sums.
    fn count_cache_hits(&self, entries: &[Got]) {
        let hits = entries
            .iter()
            .filter(|got| got.provenance == Provenance::Cache)
            .count() as u64;
        self.bump(|s| s.packages_from_cache += hits);
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
fn check_protocols(meta: &PackageMeta) -> Result<(), PackageProblem> {
    let supported = |p: &String| {
        let major = p.split('.').next().unwrap_or("");
        major == "5" || major == "6"
    };
    if meta.protocols.is_empty() || meta.protocols.iter().any(supported) {
        return Ok(());
    }
    Err(PackageProblem::Protocols {
        protocols: meta.protocols.clone(),
    })
}

/// One package being hashed, for messages.
struct Package<'a> {
    provider: &'a ProviderAddr,
    version: &'a Version,
    /// The version as the registry's URLs and the cache spell it.
    v: String,
}

impl Package<'_> {
    /// `provider version`, for messages.
    fn label(&self) -> String {
        format!("{} {}", self.provider, self.version)
    }

    /// An error naming the package and, where one is involved, the platform.
    fn error(&self, platform: Option<&Platform>, problem: PackageProblem) -> PackageError {
        PackageError::new(self.provider, self.version, platform, problem)
    }
}

/// One platform's entry and where this run got it.
struct Got {
    platform: Platform,
    entry: PlatformEntry,
    provenance: Provenance,
}

/// What the cache had for a package.
struct Found {
    sums: Option<VerifiedSums>,
    /// Where `sums` came from: the local or the shared cache.
    sums_provenance: Provenance,
    entries: Vec<Got>,
    missing: Vec<Platform>,
    shared: SharedFound,
}

/// What the shared cache had that is not yet believed, and what it had that was refused
/// (a writer replaces those).
#[derive(Default)]
struct SharedFound {
    /// A SHA256SUMS no trusted writer signed: checked against the registry's keys.
    unvouched_sums: Option<SignedSums>,
    refused_sums: bool,
    refused_platforms: Vec<Platform>,
}

/// Everything a package's lock entry is made of.
struct Complete {
    entries: Vec<Got>,
    sums: VerifiedSums,
    sums_provenance: Provenance,
}

/// What `providers lock` records for a package (spec §5.5): each platform's `h1:` and
/// every signed `zh:` line; when SHA256SUMS did not look like a checksum list, each
/// downloaded zip's own `zh:` instead (Terraform's fallback). Each with where it came
/// from: the platform's own origin, or `sums_provenance` for the SHA256SUMS lines.
fn finish(entries: &[Got], sums: &VerifiedSums, sums_provenance: Provenance) -> PackageHashes {
    let mut hashes = PackageHashes::new();
    for got in entries {
        let origin = HashOrigin::of(got.provenance, &got.platform);
        let mut own = vec![&got.entry.h1];
        if sums.zh.is_empty() {
            own.push(&got.entry.zh);
        }
        for hash in parse_hashes(own).unwrap_or_default() {
            hashes.insert(hash, origin.clone());
        }
    }
    for zh in &sums.zh {
        hashes.insert(
            zh.clone(),
            HashOrigin {
                provenance: sums_provenance,
                platform: None,
            },
        );
    }
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
    sums: &VerifiedSums,
) -> Option<&'m BTreeMap<Platform, PlatformHashes>> {
    let map = meta.packages.as_ref()?;
    let signed = |zh: &Hash| sums.lists(zh.as_str());
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
) -> Result<Vec<(&'p Platform, PlatformEntry)>, PackagesMapError> {
    let entry = |p: &Platform| -> Result<PlatformEntry, PackagesMapError> {
        let e = map
            .get(p)
            .ok_or_else(|| PackagesMapError::NoEntry(p.clone()))?;
        let (Some(h1), Some(zh)) = (e.first("h1"), e.first("zh")) else {
            return Err(PackagesMapError::Incomplete(p.clone()));
        };
        Ok(PlatformEntry {
            h1: h1.to_string(),
            zh: zh.to_string(),
            size: e.package_size.unwrap_or(0),
            origin: Origin::PackagesMap,
        })
    };
    let claimed = entry(downloaded_platform)?;
    let size_ok = map
        .get(downloaded_platform)
        .and_then(|e| e.package_size)
        .is_none_or(|size| size == downloaded.size);
    if claimed.h1 != downloaded.h1 || claimed.zh != downloaded.zh || !size_ok {
        let described = |e: &PlatformEntry| MapEntry {
            h1: e.h1.clone(),
            zh: e.zh.clone(),
            size: e.size,
        };
        return Err(PackagesMapError::Disagrees(Box::new(Disagreement {
            platform: downloaded_platform.clone(),
            claimed: described(&claimed),
            downloaded: described(downloaded),
        })));
    }
    missing
        .iter()
        .filter(|p| *p != downloaded_platform)
        .map(|p| entry(p).map(|e| (p, e)))
        .collect()
}

/// Hash strings from the cache are re-parsed; a bad one makes the whole entry a miss.
fn parse_hashes<'a>(items: impl IntoIterator<Item = &'a String>) -> Option<Vec<Hash>> {
    items.into_iter().map(|s| Hash::parse(s).ok()).collect()
}
