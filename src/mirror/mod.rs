//! Where packages come from other than the provider's own registry: filesystem mirrors
//! (spec §7), network mirrors (spec §6), and the routing between sources that
//! `--fs-mirror`, `--net-mirror` or a CLI-config `provider_installation` block sets up
//! (spec §8, §9).
//!
//! - [`fs`]: [`FsMirror`], a scanned directory in the packed or unpacked layout.
//! - [`net`]: [`NetMirror`], the `index.json` / `<version>.json` protocol.
//! - [`download`]: one archive streamed and hashed, with retries (shared by `net`).
//! - this file: [`Source`] and [`Sources`], which answer the two questions the `lock`
//!   pipeline asks, for every provider: *which versions exist* and *which hashes does
//!   the lock entry for this version get for these platforms*. The origin registry
//!   stays where it is ([`crate::index::HashIndex`]); callers pass it in as a closure,
//!   so this module never reaches back into the pipeline.
//!
//! What a mirror contributes to a lock file is only the `h1:` computed locally from
//! the package it serves: nothing signs a mirror's packages, so Terraform records no
//! `zh:` for them, and a network mirror's own `hashes` only verify the download
//! (spec §5.5).

pub mod fs;
pub mod net;

use std::collections::{BTreeMap, BTreeSet};
use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;

use crate::addr::{Platform, ProviderAddr};
use crate::cliconfig::{MethodLocation, ProviderInstallation, ProviderPattern};
use crate::hash::Hash;
use crate::index::PackageError;
use crate::registry::{RegistryClient, RegistryError};
use crate::version::Version;

pub use fs::FsMirror;
pub use net::NetMirror;

/// Why a mirror could not answer. Every variant names the mirror or file involved.
#[derive(Debug, Clone, thiserror::Error)]
pub enum MirrorError {
    #[error("cannot read the filesystem mirror {}: {message}", dir.display())]
    Scan { dir: PathBuf, message: String },
    /// The mirror has no package for what was asked.
    #[error("{what} is not available in {place}")]
    NotAvailable { place: String, what: String },
    #[error("hashing {}: {message}", path.display())]
    Hash { path: PathBuf, message: String },
    #[error(transparent)]
    Registry(#[from] RegistryError),
    /// The mirror answered something tfsum cannot use.
    #[error("network mirror: {url}: {reason}")]
    Invalid { url: String, reason: String },
    /// A downloaded archive does not match the hashes the mirror gave for it.
    #[error("network mirror: the package downloaded from {url} {reason}")]
    Verify { url: String, reason: String },
    #[error("network mirror: downloading {url}: {reason}")]
    Download { url: String, reason: String },
    /// A mirror as configured cannot be used (a URL that is not https, say).
    #[error("{0}")]
    Config(String),
}

/// One place packages come from.
#[derive(Debug, Clone)]
pub enum Source {
    /// The provider's origin registry: the existing registry pipeline.
    Registry,
    FsMirror(Arc<FsMirror>),
    NetMirror(Arc<NetMirror>),
}

impl Source {
    /// How the source is named in messages.
    pub fn describe(&self) -> String {
        match self {
            Source::Registry => "the provider's registry".to_string(),
            Source::FsMirror(m) => format!("the filesystem mirror {}", m.dir().display()),
            Source::NetMirror(m) => format!("the network mirror {}", m.base()),
        }
    }
}

/// A source and the providers it is for (a `provider_installation` method).
#[derive(Debug, Clone)]
pub struct Selector {
    pub source: Source,
    pub include: Vec<ProviderPattern>,
    pub exclude: Vec<ProviderPattern>,
}

impl Selector {
    /// A selector for every provider.
    pub fn all(source: Source) -> Selector {
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

/// What the registry closure of [`Sources::versions`] reports when it fails.
#[derive(Debug, Clone)]
pub struct VersionsError {
    pub message: String,
    /// The registry does not know the provider (404), so other sources may still.
    pub not_found: bool,
}

/// A provider's versions from every source that has it, plus registry warnings.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct VersionsFound {
    /// Raw version strings, each once, in the order the sources gave them.
    pub versions: Vec<String>,
    pub warnings: Vec<String>,
}

/// The sources of a run, in order, with the providers each is for (Terraform's
/// `MultiSource`).
#[derive(Debug, Clone)]
pub struct Sources {
    selectors: Vec<Selector>,
    /// What a pattern without a hostname means: the run's default registry.
    default_host: String,
}

impl Sources {
    /// Every provider from its own registry: what tfsum does without mirror options,
    /// and what `terraform providers lock` does.
    pub fn registry() -> Sources {
        Sources::only(Source::Registry)
    }

    /// Every provider from one source (`--fs-mirror DIR`, `--net-mirror URL`).
    pub fn only(source: Source) -> Sources {
        Sources {
            selectors: vec![Selector::all(source)],
            default_host: crate::addr::TERRAFORM_REGISTRY.to_string(),
        }
    }

    /// Selectors in order; `default_host` is what patterns without a hostname mean.
    pub fn new(selectors: Vec<Selector>, default_host: &str) -> Sources {
        Sources {
            selectors,
            default_host: default_host.to_string(),
        }
    }

    /// The sources a `provider_installation` block describes (spec §8), for
    /// `--use-cli-config-installation`. Filesystem mirrors are scanned now (their
    /// warnings are returned), network mirrors must be https and need `client`
    /// (`None` when offline). `dev_overrides` cannot be locked and are reported.
    pub fn from_installation(
        installation: &ProviderInstallation,
        client: Option<&RegistryClient>,
        default_host: &str,
    ) -> Result<(Sources, Vec<String>), MirrorError> {
        let mut selectors = Vec::new();
        let mut warnings = Vec::new();
        for method in &installation.methods {
            let source = match &method.location {
                MethodLocation::Direct => Source::Registry,
                MethodLocation::FilesystemMirror(dir) => {
                    let mirror = FsMirror::scan(dir)?;
                    warnings.extend(mirror.warnings().iter().cloned());
                    Source::FsMirror(Arc::new(mirror))
                }
                MethodLocation::NetworkMirror(url) => {
                    let client = client.ok_or_else(|| {
                        MirrorError::Config(format!(
                            "the network mirror {url} (in {}) cannot be used offline",
                            installation.file.display()
                        ))
                    })?;
                    Source::NetMirror(Arc::new(NetMirror::new(url, client.clone())?))
                }
                MethodLocation::DevOverrides(overrides) => {
                    for provider in overrides.keys() {
                        warnings.push(format!(
                            "{}: dev_overrides for {provider} ignored: overridden providers get no lock entry",
                            installation.file.display()
                        ));
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
        Ok((Sources::new(selectors, default_host), warnings))
    }

    /// True when every provider comes from its registry, as without mirror options.
    pub fn is_registry_only(&self) -> bool {
        self.selectors.len() == 1
            && matches!(self.selectors[0].source, Source::Registry)
            && self.selectors[0].include.is_empty()
            && self.selectors[0].exclude.is_empty()
    }

    /// The sources that may serve `provider`, in order.
    pub fn for_provider(&self, provider: &ProviderAddr) -> Vec<&Source> {
        self.selectors
            .iter()
            .filter(|s| s.can_handle(provider, &self.default_host))
            .map(|s| &s.source)
            .collect()
    }

    /// The versions of `provider`: the union over its sources (`MultiSource.
    /// AvailableVersions`). A source that does not know the provider is skipped; any
    /// other failure is the answer. `registry` lists the origin registry's versions
    /// and is called at most once, only if a `Registry` source applies.
    pub async fn versions<F, Fut>(
        &self,
        provider: &ProviderAddr,
        registry: F,
    ) -> Result<VersionsFound, String>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<VersionsFound, VersionsError>>,
    {
        let sources = self.for_provider(provider);
        if sources.is_empty() {
            return Err(format!(
                "provider {provider} is not matched by any provider installation method"
            ));
        }
        let mut registry = Some(registry);
        let mut found = VersionsFound::default();
        let mut any = false;
        for source in &sources {
            let listed: Option<VersionsFound> = match source {
                Source::Registry => match registry.take() {
                    Some(call) => match call().await {
                        Ok(list) => Some(list),
                        Err(e) if e.not_found && sources.len() > 1 => None,
                        Err(e) => return Err(e.message),
                    },
                    None => None, // a second `direct` adds nothing
                },
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
                    .map_err(|e| e.to_string())?
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
            let names: Vec<String> = sources.iter().map(|s| s.describe()).collect();
            return Err(format!(
                "provider {provider} was not found in {}",
                names.join(" or ")
            ));
        }
        Ok(found)
    }

    /// The hashes a lock entry for (`provider`, `version`) gets for `platforms`: per
    /// platform, from the first source that has that package (`MultiSource.
    /// PackageMeta`). Mirrors contribute the local `h1:` only; platforms left for the
    /// registry go to `registry` in one call, which returns what the registry pipeline
    /// records (`h1:` per platform plus signed `zh:`).
    pub async fn package_hashes<F, Fut>(
        &self,
        provider: &ProviderAddr,
        version: &Version,
        platforms: &[Platform],
        registry: F,
    ) -> Result<BTreeSet<Hash>, PackageError>
    where
        F: FnOnce(Vec<Platform>) -> Fut,
        Fut: Future<Output = Result<BTreeSet<Hash>, PackageError>>,
    {
        let err = |platform: Option<&Platform>, reason: String| PackageError {
            package: match platform {
                Some(p) => format!("{provider} {version} ({p})"),
                None => format!("{provider} {version}"),
            },
            reason,
        };
        let sources = self.for_provider(provider);
        // Which source serves which platform.
        let mut assigned: BTreeMap<usize, Vec<Platform>> = BTreeMap::new();
        for platform in platforms {
            let mut chosen = None;
            for (index, source) in sources.iter().enumerate() {
                let has = match source {
                    Source::Registry => true,
                    Source::FsMirror(m) => m.package(provider, version, platform).is_some(),
                    Source::NetMirror(m) => m
                        .has_package(provider, version, platform)
                        .await
                        .map_err(|e| err(Some(platform), e.to_string()))?,
                };
                if has {
                    chosen = Some(index);
                    break;
                }
            }
            let Some(index) = chosen else {
                let names: Vec<String> = sources.iter().map(|s| s.describe()).collect();
                return Err(err(
                    Some(platform),
                    format!("not available in {}", names.join(" or ")),
                ));
            };
            assigned.entry(index).or_default().push(platform.clone());
        }

        let mut hashes = BTreeSet::new();
        let mut registry = Some(registry);
        for (index, platforms) in assigned {
            match sources[index] {
                Source::Registry => {
                    if let Some(call) = registry.take() {
                        hashes.extend(call(platforms).await?);
                    }
                }
                Source::FsMirror(mirror) => {
                    for platform in platforms {
                        let mirror = Arc::clone(mirror);
                        let (p, v, pl) = (provider.clone(), version.clone(), platform.clone());
                        let hashed =
                            tokio::task::spawn_blocking(move || mirror.package_hash(&p, &v, &pl))
                                .await
                                .map_err(|e| {
                                    err(Some(&platform), format!("hashing task failed: {e}"))
                                })?;
                        hashes.insert(hashed.map_err(|e| err(Some(&platform), e.to_string()))?);
                    }
                }
                Source::NetMirror(mirror) => {
                    let found = mirror
                        .package_hashes(provider, version, &platforms)
                        .await
                        .map_err(|e| err(None, e.to_string()))?;
                    hashes.extend(found);
                }
            }
        }
        Ok(hashes)
    }
}

#[cfg(test)]
mod tests;
