//! Package sources: where provider packages come from, and the hashes a lock entry gets
//! from each; and where remote modules come from ([`modules`]).
//!
//! `tfsum-sources` owns what a package is and how it is trusted: the registry through
//! the hash cache and the shared cache, filesystem, network and OCI mirrors, remote
//! modules (fetching, checking, unpacking, caching). It uses the network, the disk and
//! the vocabulary; it never reads configuration files and never knows which roots asked.
//!
//! The sources answer the
//! two questions the `lock` pipeline asks for every provider: *which versions exist* (for
//! the resolve stage, `tfsum_stages::resolve`)
//! and *which hashes does the lock entry for this version get for these platforms* (for
//! the hash stage, `tfsum_stages::hash`); `tfsum verify` asks them too, and the
//! install stage of `tfsum mirror` fetches checked packages from them.
//!
//! - [`registry`]: [`RegistrySource`], each provider's origin registry through the hash
//!   cache and the organisation's shared cache: signed `zh:` lines and per-platform `h1:`
//!   (spec §5).
//! - [`kept`]: the zips a `lock --mirror` run keeps for the install stage.
//! - [`modules`]: remote modules, the other kind of package: the code a `module` call
//!   names, fetched once from a module registry, git or an archive, checked and cached.
//! - [`fs`]: [`FsMirror`], a scanned directory in the packed or unpacked layout (spec §7).
//! - [`net`]: [`NetMirror`], the `index.json` / `<version>.json` protocol (spec §6).
//! - [`oci`]: [`OciMirror`], OpenTofu's OCI registry mirror (`oci_mirror`,
//!   `--oci-mirror`), and pushing provider versions into one (`mirror --layout oci`).
//! - this file: [`Source`] and [`Sources`], the routing between them that `--fs-mirror`,
//!   `--net-mirror` or a CLI-config `provider_installation` block sets up (spec §8, §9).
//! - [`error`]: what they say when they cannot answer, as values.
//!
//! What a filesystem or network mirror contributes to a lock file is only the `h1:`
//! computed locally from the package it serves: nothing signs a mirror's packages, so
//! Terraform records no `zh:` for them, and a network mirror's own `hashes` only verify
//! the download (spec §5.5). An OCI mirror's blobs are content-addressed: OpenTofu
//! records each platform's `h1:` and the `zh:` that is the blob's digest, verified as it
//! downloads (`oci_registry_mirror_source.go:336-346`).

#![warn(unreachable_pub)]

pub mod error;
pub(crate) mod fs;
pub mod kept;
pub mod modules;
pub(crate) mod net;
pub mod oci;
pub mod registry;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use futures::future::BoxFuture;
use tfsum_net::cliconfig::{MethodLocation, ProviderInstallation, ProviderPattern};
use tfsum_net::registry::RegistryClient;
use tfsum_net::shared_store::SharedWarning;
use tfsum_vocab::addr::{Platform, PlatformPackage, ProviderAddr};
use tfsum_vocab::hash::zipstream::ZipHashes;
use tfsum_vocab::hash::Hash;
use tfsum_vocab::lockfile::Flavor;
use tfsum_vocab::version::Version;

pub use error::{
    MirrorError, PackageError, PackageProblem, SourceName, SourceWarning, VersionsError,
};
pub use fs::FsMirror;
pub use net::NetMirror;
pub(crate) use oci::OciMirror;
pub use registry::{RegistryOptions, RegistrySource, RegistryStats, SharedStats};

/// The origin registry as the routing sees it: [`RegistrySource`] in a run, a fake in
/// tests of the routing.
pub trait Registry: Send + Sync + std::fmt::Debug {
    /// The provider's versions as the registry lists them.
    fn versions<'a>(
        &'a self,
        provider: &'a ProviderAddr,
    ) -> BoxFuture<'a, Result<VersionsFound, VersionsError>>;

    /// `h1:` per platform plus the signed `zh:` lines; `use_packages_map` as in
    /// [`RegistrySource::package_hashes`].
    fn package_hashes<'a>(
        &'a self,
        provider: &'a ProviderAddr,
        version: &'a Version,
        platforms: &'a [Platform],
        use_packages_map: bool,
    ) -> BoxFuture<'a, Result<PackageHashes, PackageError>>;

    /// The platforms the version's signed SHA256SUMS lists ([`RegistrySource::
    /// published_platforms`]).
    fn published_platforms<'a>(
        &'a self,
        provider: &'a ProviderAddr,
        version: &'a Version,
    ) -> BoxFuture<'a, Result<Vec<Platform>, PackageError>>;

    /// The package for one platform, downloaded into `into` and checked
    /// ([`RegistrySource::fetch_package`]).
    fn fetch_package<'a>(
        &'a self,
        package: PlatformPackage<'a>,
        into: &'a std::fs::File,
    ) -> BoxFuture<'a, Result<ZipHashes, PackageError>>;

    /// The version's signed SHA256SUMS: its `zh:` lines and its files' checksums
    /// ([`RegistrySource::signed_checksums`]).
    fn signed_checksums<'a>(
        &'a self,
        provider: &'a ProviderAddr,
        version: &'a Version,
    ) -> BoxFuture<'a, Result<SignedChecksums, PackageError>>;

    /// Downloads and cache hits so far.
    fn stats(&self) -> RegistryStats;

    /// What went wrong with the shared cache so far.
    fn shared_warnings(&self) -> Vec<SharedWarning> {
        Vec::new()
    }
}

impl Registry for RegistrySource {
    fn versions<'a>(
        &'a self,
        provider: &'a ProviderAddr,
    ) -> BoxFuture<'a, Result<VersionsFound, VersionsError>> {
        Box::pin(RegistrySource::versions(self, provider))
    }

    fn package_hashes<'a>(
        &'a self,
        provider: &'a ProviderAddr,
        version: &'a Version,
        platforms: &'a [Platform],
        use_packages_map: bool,
    ) -> BoxFuture<'a, Result<PackageHashes, PackageError>> {
        Box::pin(RegistrySource::package_hashes(
            self,
            provider,
            version,
            platforms,
            use_packages_map,
        ))
    }

    fn published_platforms<'a>(
        &'a self,
        provider: &'a ProviderAddr,
        version: &'a Version,
    ) -> BoxFuture<'a, Result<Vec<Platform>, PackageError>> {
        Box::pin(RegistrySource::published_platforms(self, provider, version))
    }

    fn fetch_package<'a>(
        &'a self,
        package: PlatformPackage<'a>,
        into: &'a std::fs::File,
    ) -> BoxFuture<'a, Result<ZipHashes, PackageError>> {
        Box::pin(RegistrySource::fetch_package(self, package, into))
    }

    fn signed_checksums<'a>(
        &'a self,
        provider: &'a ProviderAddr,
        version: &'a Version,
    ) -> BoxFuture<'a, Result<SignedChecksums, PackageError>> {
        Box::pin(RegistrySource::signed_checksums(self, provider, version))
    }

    fn stats(&self) -> RegistryStats {
        RegistrySource::stats(self)
    }

    fn shared_warnings(&self) -> Vec<SharedWarning> {
        RegistrySource::shared_warnings(self)
    }
}

/// One place packages come from.
#[derive(Debug, Clone)]
pub enum Source {
    /// The provider's origin registry.
    Registry(Arc<dyn Registry>),
    FsMirror(Arc<FsMirror>),
    NetMirror(Arc<NetMirror>),
    OciMirror(Arc<OciMirror>),
}

impl Source {
    /// How the source is named in messages.
    pub(crate) fn name(&self) -> SourceName {
        match self {
            Source::Registry(_) => SourceName::Registry,
            Source::FsMirror(m) => SourceName::FsMirror(m.dir().to_path_buf()),
            Source::NetMirror(m) => SourceName::NetMirror(m.base().clone()),
            Source::OciMirror(m) => SourceName::OciMirror(m.template().to_string()),
        }
    }
}

/// A source and the providers it is for (a `provider_installation` method).
#[derive(Debug, Clone)]
pub(crate) struct Selector {
    pub source: Source,
    pub include: Vec<ProviderPattern>,
    pub exclude: Vec<ProviderPattern>,
}

impl Selector {
    /// A selector for every provider.
    pub(crate) fn all(source: Source) -> Selector {
        Selector {
            source,
            include: Vec::new(),
            exclude: Vec::new(),
        }
    }

    fn can_handle(&self, provider: &ProviderAddr, default_host: &str) -> bool {
        let any = |patterns: &[ProviderPattern]| {
            patterns.iter().any(|p| p.matches(provider, default_host))
        };
        !any(&self.exclude) && (self.include.is_empty() || any(&self.include))
    }
}

/// A provider's versions from every source that has it, plus registry warnings.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct VersionsFound {
    /// Raw version strings, each once, in the order the sources gave them.
    pub versions: Vec<String>,
    pub warnings: Vec<String>,
}

/// Counters for the run summary and the benchmark: the registry's, and the packages
/// hashed from mirrors.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct SourceStats {
    pub packages_from_cache: u64,
    pub packages_downloaded: u64,
    pub zip_bytes_downloaded: u64,
    pub sums_fetched: u64,
    /// Packages (one per platform) hashed from a filesystem, network or OCI mirror.
    pub packages_from_mirror: u64,
    /// The shared cache's counters, when one was configured.
    pub shared: Option<SharedStats>,
}

/// The sources of a run, in order, with the providers each is for (Terraform's
/// `MultiSource`), and the registry source that holds the run's statistics.
#[derive(Debug, Clone)]
pub struct Sources {
    selectors: Vec<Selector>,
    /// What a pattern without a hostname means: the run's default registry.
    default_host: String,
    registry: Arc<dyn Registry>,
    /// Packages hashed from mirrors, shared by the clones of one run's sources.
    from_mirror: Arc<AtomicU64>,
}

impl Sources {
    /// Every provider from its own registry: what tfsum does without mirror options,
    /// and what `terraform providers lock` does.
    pub fn registry(registry: Arc<dyn Registry>) -> Sources {
        Sources::only(Source::Registry(registry.clone()), registry)
    }

    /// Every provider from one source (`--fs-mirror DIR`, `--net-mirror URL`).
    pub fn only(source: Source, registry: Arc<dyn Registry>) -> Sources {
        Sources::new(
            vec![Selector::all(source)],
            tfsum_vocab::addr::TERRAFORM_REGISTRY,
            registry,
        )
    }

    /// Selectors in order; `default_host` is what patterns without a hostname mean.
    pub(crate) fn new(
        selectors: Vec<Selector>,
        default_host: &str,
        registry: Arc<dyn Registry>,
    ) -> Sources {
        Sources {
            selectors,
            default_host: default_host.to_string(),
            registry,
            from_mirror: Arc::default(),
        }
    }

    /// Downloads and cache hits of the registry source, and packages from mirrors.
    pub fn stats(&self) -> SourceStats {
        let registry = self.registry.stats();
        SourceStats {
            packages_from_cache: registry.packages_from_cache,
            packages_downloaded: registry.packages_downloaded,
            zip_bytes_downloaded: registry.zip_bytes_downloaded,
            sums_fetched: registry.sums_fetched,
            packages_from_mirror: self.from_mirror.load(Ordering::Relaxed),
            shared: registry.shared,
        }
    }

    /// What went wrong with the shared cache, for the run's warnings.
    pub fn shared_warnings(&self) -> Vec<SharedWarning> {
        self.registry.shared_warnings()
    }

    /// The sources a `provider_installation` block describes (spec §8), for
    /// `--use-cli-config-installation`. Filesystem mirrors are scanned now (their
    /// warnings are returned), network mirrors must be https and need `client`
    /// (`None` when offline). `dev_overrides` cannot be locked and are reported.
    pub fn from_installation(
        installation: &ProviderInstallation,
        client: Option<&RegistryClient>,
        default_host: &str,
        registry: Arc<dyn Registry>,
        mirror: &MirrorOptions,
    ) -> Result<(Sources, Vec<SourceWarning>), MirrorError> {
        let mut selectors = Vec::new();
        let mut warnings = Vec::new();
        for method in &installation.methods {
            let source = match &method.location {
                MethodLocation::Direct => Source::Registry(registry.clone()),
                MethodLocation::FilesystemMirror(dir) => {
                    let mirror = FsMirror::scan(dir, mirror.zip_limits.clone())?;
                    warnings.extend(mirror.warnings().iter().cloned());
                    Source::FsMirror(Arc::new(mirror))
                }
                MethodLocation::NetworkMirror(url) => {
                    let client = client.ok_or_else(|| MirrorError::Offline {
                        url: url.clone(),
                        file: installation.file.clone(),
                    })?;
                    Source::NetMirror(Arc::new(NetMirror::new(url, client.clone(), mirror)?))
                }
                MethodLocation::OciMirror(text) => {
                    let template =
                        oci::RepositoryTemplate::hcl(text, &method.include, default_host).map_err(
                            |error| MirrorError::OciTemplate {
                                file: installation.file.clone(),
                                error,
                            },
                        )?;
                    Source::OciMirror(Arc::new(mirror.oci_mirror(template)?))
                }
                MethodLocation::DevOverrides(overrides) => {
                    for provider in overrides.keys() {
                        warnings.push(SourceWarning::DevOverride {
                            file: installation.file.clone(),
                            provider: provider.clone(),
                        });
                    }
                    continue;
                }
            };
            selectors.push(Selector {
                source,
                include: method.include.clone(),
                exclude: method.exclude.clone(),
            });
        }
        Ok((Sources::new(selectors, default_host, registry), warnings))
    }

    /// The sources that may serve `provider`, in order.
    pub(crate) fn for_provider(&self, provider: &ProviderAddr) -> Vec<&Source> {
        self.selectors
            .iter()
            .filter(|s| s.can_handle(provider, &self.default_host))
            .map(|s| &s.source)
            .collect()
    }

    /// The versions of `provider`: the union over its sources (`MultiSource.
    /// AvailableVersions`). A source that does not know the provider is skipped; any
    /// other failure is the answer. The registry is asked at most once.
    pub async fn versions(&self, provider: &ProviderAddr) -> Result<VersionsFound, VersionsError> {
        let sources = self.for_provider(provider);
        if sources.is_empty() {
            return Err(VersionsError::NoMethod {
                provider: provider.clone(),
            });
        }
        let mut asked_registry = false;
        let mut found = VersionsFound::default();
        let mut any = false;
        for source in &sources {
            let listed: Option<VersionsFound> = match source {
                // A second `direct` adds nothing.
                Source::Registry(_) if asked_registry => None,
                Source::Registry(registry) => {
                    asked_registry = true;
                    match registry.versions(provider).await {
                        Ok(list) => Some(list),
                        Err(e) if e.is_not_found() && sources.len() > 1 => None,
                        Err(e) => return Err(e),
                    }
                }
                Source::FsMirror(mirror) => {
                    let versions = mirror.versions(provider);
                    (!versions.is_empty()).then_some(VersionsFound {
                        versions,
                        warnings: Vec::new(),
                    })
                }
                Source::NetMirror(mirror) => mirror
                    .versions(provider)
                    .await
                    .map_err(|e| VersionsError::Mirror(Box::new(e)))?
                    .map(|versions| VersionsFound {
                        versions,
                        warnings: Vec::new(),
                    }),
                Source::OciMirror(mirror) => mirror
                    .versions(provider)
                    .await
                    .map_err(|e| VersionsError::Mirror(Box::new(e.into())))?
                    .map(|versions| VersionsFound {
                        versions,
                        warnings: Vec::new(),
                    }),
            };
            if let Some(list) = listed {
                any = true;
                for v in list.versions {
                    if !found.versions.contains(&v) {
                        found.versions.push(v);
                    }
                }
                found.warnings.extend(list.warnings);
            }
        }
        if !any {
            return Err(VersionsError::NotFound {
                provider: provider.clone(),
                sources: sources.iter().map(|s| s.name()).collect(),
            });
        }
        Ok(found)
    }

    /// The hashes a lock entry for (`provider`, `version`) gets for `platforms` in a
    /// root of `flavor`: per platform, from the first source that has that package
    /// (`MultiSource.PackageMeta`). Mirrors contribute the local `h1:` only; platforms
    /// left for the registry go to it in one call, which returns `h1:` per platform plus
    /// the signed `zh:` lines.
    pub async fn package_hashes(
        &self,
        provider: &ProviderAddr,
        version: &Version,
        platforms: &[Platform],
        flavor: Flavor,
    ) -> Result<PackageHashes, PackageError> {
        let sources = self.for_provider(provider);
        let assigned = assign(&sources, provider, version, platforms).await?;
        let mut hashes = PackageHashes::new();
        for (index, platforms) in assigned {
            let err = |platform: Option<&Platform>, problem| {
                PackageError::new(provider, version, platform, problem)
            };
            match sources[index] {
                Source::Registry(registry) => {
                    let packages_map = flavor == Flavor::OpenTofu;
                    hashes.extend(
                        registry
                            .package_hashes(provider, version, &platforms, packages_map)
                            .await?,
                    );
                }
                Source::FsMirror(mirror) => {
                    for platform in platforms {
                        let mirror = Arc::clone(mirror);
                        let (p, v, pl) = (provider.clone(), version.clone(), platform.clone());
                        let hashed =
                            tokio::task::spawn_blocking(move || mirror.package_hash(&p, &v, &pl))
                                .await
                                .map_err(|e| {
                                    err(Some(&platform), PackageProblem::Task(e.to_string()))
                                })?;
                        let hash =
                            hashed.map_err(|e| err(Some(&platform), PackageProblem::Mirror(e)))?;
                        self.from_mirror.fetch_add(1, Ordering::Relaxed);
                        hashes.insert(hash, HashOrigin::of(Provenance::FsMirror, &platform));
                    }
                }
                Source::NetMirror(mirror) => {
                    let found = mirror
                        .package_hashes(provider, version, &platforms)
                        .await
                        .map_err(|e| err(None, PackageProblem::Mirror(e)))?;
                    self.from_mirror
                        .fetch_add(found.len() as u64, Ordering::Relaxed);
                    for (platform, hash) in platforms.iter().zip(found) {
                        hashes.insert(hash, HashOrigin::of(Provenance::NetMirror, platform));
                    }
                }
                Source::OciMirror(mirror) => {
                    let mirror_err =
                        |e: oci::OciMirrorError| err(None, PackageProblem::Mirror(e.into()));
                    let layers = mirror
                        .layers(provider, version, &platforms)
                        .await
                        .map_err(mirror_err)?;
                    // Beside the origin registry, each blob must be one of its packages,
                    // known before anything is downloaded.
                    let signed = self.signed_checksums(provider, version).await;
                    for (platform, layer) in platforms.iter().zip(&layers) {
                        let listed = signed.as_ref().filter(|s| !s.zh.is_empty());
                        if listed.is_some_and(|s| !s.zh.contains(&layer.zh())) {
                            let problem = PackageProblem::NotOrigin {
                                template: mirror.template().to_string(),
                                platform: platform.clone(),
                                zh: layer.zh(),
                            };
                            return Err(err(Some(platform), problem));
                        }
                    }
                    let h1s = mirror.h1s(&layers).await.map_err(mirror_err)?;
                    self.from_mirror
                        .fetch_add(layers.len() as u64, Ordering::Relaxed);
                    for ((platform, layer), h1) in platforms.iter().zip(&layers).zip(h1s) {
                        hashes.insert(h1, HashOrigin::of(Provenance::OciMirror, platform));
                        hashes.insert(layer.zh(), HashOrigin::of(Provenance::OciMirror, platform));
                    }
                    for zh in signed.into_iter().flat_map(|s| s.zh) {
                        hashes.entry(zh).or_insert(HashOrigin {
                            provenance: Provenance::SignedSums,
                            platform: None,
                        });
                    }
                }
            }
        }
        Ok(hashes)
    }

    /// The origin registry's signed SHA256SUMS for the version, when the registry is
    /// one of the provider's sources (no mirror flag, or a `direct` method beside an
    /// OCI mirror) and answers; `None` otherwise: an air-gapped run records what the
    /// mirror gives.
    pub async fn signed_checksums(
        &self,
        provider: &ProviderAddr,
        version: &Version,
    ) -> Option<SignedChecksums> {
        let registry = self
            .for_provider(provider)
            .into_iter()
            .find_map(|s| match s {
                Source::Registry(registry) => Some(registry.clone()),
                _ => None,
            })?;
        registry.signed_checksums(provider, version).await.ok()
    }
}

/// What a version's signed SHA256SUMS says: the `zh:` lines a lock entry records, and
/// each file's checksum (lowercase hex; `None` for an invalid line).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SignedChecksums {
    pub zh: Vec<Hash>,
    pub files: Vec<(String, Option<String>)>,
}

impl SignedChecksums {
    /// The checksum the document lists for `filename`.
    pub fn file(&self, filename: &str) -> Option<&str> {
        self.files
            .iter()
            .find(|(name, _)| name == filename)
            .and_then(|(_, sha)| sha.as_deref())
    }
}

impl Sources {
    /// Every platform the sources of `provider` publish `version` for, each once, in
    /// source order: what a registry's signed SHA256SUMS lists, what a mirror holds. For
    /// `tfsum verify`, which must know every package an `h1:` could be the hash of.
    pub async fn published_platforms(
        &self,
        provider: &ProviderAddr,
        version: &Version,
    ) -> Result<Vec<Platform>, PackageError> {
        let mut platforms: Vec<Platform> = Vec::new();
        let mut asked_registry = false;
        for source in self.for_provider(provider) {
            let found = match source {
                Source::Registry(_) if asked_registry => continue,
                Source::Registry(registry) => {
                    asked_registry = true;
                    registry.published_platforms(provider, version).await?
                }
                Source::FsMirror(mirror) => mirror.platforms(provider, version),
                Source::NetMirror(mirror) => mirror
                    .archives(provider, version)
                    .await
                    .map_err(|e| {
                        PackageError::new(provider, version, None, PackageProblem::Mirror(e))
                    })?
                    .unwrap_or_default()
                    .keys()
                    .filter_map(|p| p.parse::<Platform>().ok())
                    .collect(),
                Source::OciMirror(mirror) => {
                    mirror.platforms(provider, version).await.map_err(|e| {
                        PackageError::new(provider, version, None, PackageProblem::Mirror(e.into()))
                    })?
                }
            };
            for platform in found {
                if !platforms.contains(&platform) {
                    platforms.push(platform);
                }
            }
        }
        Ok(platforms)
    }
}

impl Sources {
    /// The package zip for (`provider`, `version`, `platform`), written into `into`, from
    /// the first source that has it, with its hashes: from the registry, checked against
    /// the signed SHA256SUMS; from a network mirror, checked against the hashes it lists;
    /// from a filesystem mirror's packed zip, copied (nothing signs a mirror's packages:
    /// the caller checks the `h1:` against the lock file); from an OCI mirror, checked
    /// against its digest, and first, when `recorded` (the lock files' hashes for the
    /// version) holds `zh:` lines, the digest against them.
    /// For `tfsum mirror`.
    pub async fn fetch_package(
        &self,
        package: PlatformPackage<'_>,
        into: &std::fs::File,
        recorded: &BTreeSet<Hash>,
    ) -> Result<ZipHashes, PackageError> {
        let PlatformPackage {
            provider,
            version,
            platform,
        } = package;
        let sources = self.for_provider(provider);
        let platforms = std::slice::from_ref(platform);
        let assigned = assign(&sources, provider, version, platforms).await?;
        let err = |problem| PackageError::new(provider, version, Some(platform), problem);
        let Some(&index) = assigned.keys().next() else {
            return Err(err(PackageProblem::NotComputed));
        };
        match sources[index] {
            Source::Registry(registry) => registry.fetch_package(package, into).await,
            Source::FsMirror(mirror) => {
                let found = mirror.package(provider, version, platform).cloned();
                let Some(found) = found else {
                    let names = vec![sources[index].name()];
                    return Err(err(PackageProblem::NotAvailable(names)));
                };
                let fs::Location::Packed(zip) = found.location else {
                    let dir = found.location.path().to_path_buf();
                    return Err(err(PackageProblem::UnpackedOnly(dir)));
                };
                let (into, limits) = (into.try_clone(), mirror.limits().clone());
                let copied = tokio::task::spawn_blocking(move || {
                    let mut into = into?;
                    std::io::copy(&mut std::fs::File::open(&zip)?, &mut into)?;
                    tfsum_vocab::hash::hash_zip_file(&zip, &limits).map_err(std::io::Error::other)
                })
                .await
                .map_err(|e| err(PackageProblem::Task(e.to_string())))?;
                let hashes = copied.map_err(|e| err(PackageProblem::Copy(e.to_string())))?;
                self.from_mirror.fetch_add(1, Ordering::Relaxed);
                Ok(hashes)
            }
            Source::NetMirror(mirror) => {
                let hashes = mirror
                    .fetch_package(package, into)
                    .await
                    .map_err(|e| err(PackageProblem::Mirror(e)))?;
                self.from_mirror.fetch_add(1, Ordering::Relaxed);
                Ok(hashes)
            }
            Source::OciMirror(mirror) => {
                let fetched = mirror
                    .fetch_package(package, into, recorded)
                    .await
                    .map_err(|e| err(PackageProblem::Mirror(e.into())))?;
                let Some(hashes) = fetched else {
                    let names = vec![sources[index].name()];
                    return Err(err(PackageProblem::NotAvailable(names)));
                };
                self.from_mirror.fetch_add(1, Ordering::Relaxed);
                Ok(hashes)
            }
        }
    }
}

/// Which of `sources` serves each platform: the first that has its package.
async fn assign(
    sources: &[&Source],
    provider: &ProviderAddr,
    version: &Version,
    platforms: &[Platform],
) -> Result<BTreeMap<usize, Vec<Platform>>, PackageError> {
    let mut assigned: BTreeMap<usize, Vec<Platform>> = BTreeMap::new();
    for platform in platforms {
        let mut chosen = None;
        for (index, source) in sources.iter().enumerate() {
            let has =
                match source {
                    Source::Registry(_) => true,
                    Source::FsMirror(m) => m.package(provider, version, platform).is_some(),
                    Source::NetMirror(m) => m
                        .has_package(provider, version, platform)
                        .await
                        .map_err(|e| {
                            let problem = PackageProblem::Mirror(e);
                            PackageError::new(provider, version, Some(platform), problem)
                        })?,
                    Source::OciMirror(m) => m
                        .has_package(provider, version, platform)
                        .await
                        .map_err(|e| {
                            let problem = PackageProblem::Mirror(e.into());
                            PackageError::new(provider, version, Some(platform), problem)
                        })?,
                };
            if has {
                chosen = Some(index);
                break;
            }
        }
        let Some(index) = chosen else {
            let names = sources.iter().map(|s| s.name()).collect();
            let problem = PackageProblem::NotAvailable(names);
            return Err(PackageError::new(
                provider,
                version,
                Some(platform),
                problem,
            ));
        };
        assigned.entry(index).or_default().push(platform.clone());
    }
    Ok(assigned)
}

/// What the mirror sources share with the rest of the run: plain limits from the
/// settings, the download slots, and for OCI mirrors the client and the hash cache.
#[derive(Debug, Clone)]
pub struct MirrorOptions {
    /// The run's download slots (`--jobs`), shared with the registry source.
    pub jobs: Arc<tokio::sync::Semaphore>,
    pub zip_limits: tfsum_vocab::hash::ZipLimits,
    /// The run's OCI client; `None` offline.
    pub oci: Option<tfsum_net::oci::OciAccess>,
    /// Where OCI mirrors keep the `h1:` of the blobs they hashed.
    pub cache: tfsum_disk::cache::Cache,
}

impl MirrorOptions {
    /// An OCI mirror over `template`; refused offline.
    pub fn oci_mirror(&self, template: oci::RepositoryTemplate) -> Result<OciMirror, MirrorError> {
        let client = self.oci.clone().ok_or_else(|| MirrorError::OciOffline {
            template: template.to_string(),
        })?;
        Ok(OciMirror::new(
            template,
            client,
            self.cache.clone(),
            self.zip_limits.clone(),
            self.jobs.clone(),
        ))
    }
}

/// One unique package of a plan: what the hash stage fetches, once.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Package {
    pub addr: ProviderAddr,
    pub version: Version,
    /// The flavor of the roots that use it: OpenTofu roots may take hashes from
    /// OpenTofu's `packages` map, Terraform roots never do (spec §10).
    pub flavor: Flavor,
}

/// Where a hash the hash stage produced came from: what the change report tells a
/// reviewer about each new hash of a lock file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Provenance {
    /// `h1:` computed now from a zip downloaded from the registry, whose checksum the
    /// signed SHA256SUMS vouches for.
    Download,
    /// `zh:` from a line of a SHA256SUMS fetched now whose signature verified.
    SignedSums,
    /// From the user's hash cache: an earlier run's verified download or signed sums.
    Cache,
    /// From OpenTofu's `packages` map, vouched for by one verified download (spec §10).
    PackagesMap,
    /// `h1:` computed from the package a filesystem mirror holds.
    FsMirror,
    /// `h1:` computed from a package downloaded from a network mirror.
    NetMirror,
    /// `h1:` and `zh:` of a blob an OCI mirror serves (the `zh:` is its digest, the
    /// `h1:` computed from it): what `tofu providers lock -oci-mirror` records.
    OciMirror,
    /// From the organisation's shared cache: an `h1:` a trusted writer signed, or a
    /// SHA256SUMS whose OpenPGP signature verified again.
    SharedCache,
}

impl Provenance {
    /// How the reports name it.
    pub fn as_str(self) -> &'static str {
        match self {
            Provenance::Download => "registry download",
            Provenance::SignedSums => "signed SHA256SUMS",
            Provenance::Cache => "cache",
            Provenance::PackagesMap => "OpenTofu packages map",
            Provenance::FsMirror => "filesystem mirror",
            Provenance::NetMirror => "network mirror",
            Provenance::OciMirror => "OCI mirror",
            Provenance::SharedCache => "shared cache",
        }
    }
}

/// One hash's provenance and, for an `h1:` (or a `zh:` of one downloaded zip), the
/// platform whose package it is; `None` for the `zh:` lines of SHA256SUMS, which
/// cover every platform.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HashOrigin {
    pub provenance: Provenance,
    /// Shared with every root's change report that names it.
    pub platform: Option<Arc<Platform>>,
}

impl HashOrigin {
    pub fn of(provenance: Provenance, platform: &Platform) -> HashOrigin {
        HashOrigin {
            provenance,
            platform: Some(Arc::new(platform.clone())),
        }
    }
}

/// A package's hashes, each with where it came from. The keys are what the lock entry
/// records (a `BTreeMap`, so they come out in lock-file order).
pub type PackageHashes = BTreeMap<Hash, HashOrigin>;

/// Package sources made of tables, for the tests of this crate and of the stages above
/// (the `testing` feature, which only their dev-dependencies turn on).
#[cfg(any(test, feature = "testing"))]
pub mod testing;
#[cfg(test)]
mod tests;
