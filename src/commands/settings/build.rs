//! What a `lock` or `verify` run is made of, built from its source settings: the hash
//! cache, the registry client (with the CLI configuration), the package sources and the
//! module fetcher.

use std::path::Path;
use std::sync::Arc;

use tokio::sync::Semaphore;

use tfsum_disk::cache::{Cache, CacheError};
use tfsum_net::cliconfig::{self, CliConfig, CliConfigError, ProviderInstallation};
use tfsum_net::git::GitOptions;
use tfsum_net::http::Http;
use tfsum_net::oci::{OciAccess, OciConfigError};
use tfsum_net::registry::RegistryClient;
use tfsum_net::shared_store::{SharedStore, StoreError};
use tfsum_sources::kept::KeptPackages;
use tfsum_sources::modules::{ArchiveLimits, FetcherOptions, ModuleFetcher};
use tfsum_sources::registry::shared::SharedCache;
use tfsum_sources::{
    FsMirror, MirrorError, MirrorOptions, NetMirror, RegistryOptions, RegistrySource, Source,
    Sources,
};
use tfsum_stages::warning::Warning;
use tfsum_vocab::lockfile::Flavor;
use tfsum_vocab::progress::Progress;

use super::{PackageSource, SourceSettings};

/// Why the services of a run could not be built. Nothing has been locked yet.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SetupError {
    #[error(transparent)]
    CliConfig(#[from] CliConfigError),
    #[error(transparent)]
    OciConfig(#[from] OciConfigError),
    #[error(transparent)]
    Mirror(#[from] MirrorError),
    #[error(transparent)]
    Cache(#[from] CacheError),
    #[error(transparent)]
    SharedCache(#[from] StoreError),
}

/// The services of one run.
pub(crate) struct Services {
    pub cache: Cache,
    pub sources: Sources,
    /// Remote module code for the load stage, sharing the download slots.
    pub modules: ModuleFetcher,
    /// What building them found worth saying (CLI configuration, mirror scans).
    pub warnings: Vec<Warning>,
    /// The parts of the CLI configuration that choose where packages come from (its
    /// `host` and `provider_installation` blocks), rendered, or why none was read: what
    /// the configuration index keeps of it (`tfsum_stages::index::IndexSettings`).
    pub installation: String,
    /// The run's OCI client, made on first use; `None` offline.
    pub oci: Option<OciAccess>,
}

impl SourceSettings {
    /// The cache directory, checked ([`Cache::open`]); without hash facts for
    /// `--no-cache` (it still keeps the run record).
    pub(crate) fn cache(&self) -> Result<Cache, CacheError> {
        let Some(dir) = &self.cache_dir else {
            return Ok(Cache::disabled());
        };
        let cache = Cache::open(dir.clone())?;
        Ok(if self.use_cache {
            cache
        } else {
            cache.without_facts()
        })
    }

    /// Builds the cache, the registry client and the sources of a run.
    pub(crate) fn services(&self, progress: Arc<dyn Progress>) -> Result<Services, SetupError> {
        self.services_keeping(progress, None)
    }

    /// [`Self::services`] whose registry source keeps every zip it downloads in `kept`
    /// (`lock --mirror`).
    pub(crate) fn services_keeping(
        &self,
        progress: Arc<dyn Progress>,
        kept: Option<Arc<KeptPackages>>,
    ) -> Result<Services, SetupError> {
        let mut warnings = Vec::new();
        let cache = self.cache()?;
        // Offline runs need no client, unless the CLI configuration says where packages
        // come from.
        let mut rendered = "not read (offline)".to_string();
        let (client, installation, oci) =
            if self.offline && self.packages != PackageSource::CliConfig {
                (None, None, None)
            } else {
                let (client, config) = self.registry_client(&mut warnings, &mut rendered)?;
                let installation = config.provider_installation().cloned();
                let oci = if self.offline {
                    None
                } else {
                    Some(OciAccess::new(
                        client.http().clone(),
                        &config.oci_credentials,
                        config.oci_default_credentials.first(),
                        self.environment.oci_env(),
                        self.oci.clone(),
                    )?)
                };
                (Some(client).filter(|_| !self.offline), installation, oci)
            };
        let jobs = Arc::new(Semaphore::new(self.jobs.max(1)));
        let mut registry = RegistrySource::new(
            client.clone(),
            cache.clone(),
            RegistryOptions {
                offline: self.offline,
                versions_ttl: self.versions_ttl,
                zip_limits: self.zip_limits.clone(),
            },
            jobs.clone(),
            progress,
        );
        if let Some(shared) = self.shared.as_ref().filter(|_| self.use_cache) {
            let store = Arc::new(SharedStore::open(&shared.store, &self.http)?);
            registry = registry.with_shared(Arc::new(SharedCache::new(
                store,
                shared.trusted.clone(),
                shared.writer.clone(),
                shared.fill,
            )));
        }
        if let Some(kept) = kept {
            registry = registry.keeping(kept);
        }
        let registry = Arc::new(registry);
        let mirror = MirrorOptions {
            jobs: jobs.clone(),
            zip_limits: self.zip_limits.clone(),
            oci: oci.clone(),
            cache: cache.clone(),
        };
        let sources = self.sources(
            registry,
            client.as_ref(),
            installation,
            &mirror,
            &mut warnings,
        )?;
        let modules = self.module_fetcher(client, &cache, jobs, oci.clone());
        Ok(Services {
            cache,
            sources,
            modules,
            warnings,
            installation: rendered,
            oci,
        })
    }

    /// Where packages come from: the registry, a mirror the flags name, or the CLI
    /// configuration's `provider_installation` block.
    fn sources(
        &self,
        registry: Arc<RegistrySource>,
        client: Option<&RegistryClient>,
        installation: Option<ProviderInstallation>,
        mirror: &MirrorOptions,
        warnings: &mut Vec<Warning>,
    ) -> Result<Sources, SetupError> {
        Ok(match &self.packages {
            PackageSource::Registry => Sources::registry(registry),
            PackageSource::FsMirror(dir) => {
                let scanned = FsMirror::scan(dir, mirror.zip_limits.clone())?;
                warnings.extend(scanned.warnings().iter().cloned().map(Warning::from));
                Sources::only(Source::FsMirror(Arc::new(scanned)), registry)
            }
            PackageSource::NetMirror(url) => match client {
                Some(client) => {
                    let mirror = NetMirror::new(url, client.clone(), mirror)?;
                    Sources::only(Source::NetMirror(Arc::new(mirror)), registry)
                }
                None => Sources::registry(registry),
            },
            PackageSource::OciMirror(template) => {
                let mirror = mirror.oci_mirror(template.clone())?;
                Sources::only(Source::OciMirror(Arc::new(mirror)), registry)
            }
            PackageSource::CliConfig => {
                let default_host = self.flavor.unwrap_or(Flavor::Terraform).default_registry();
                match installation {
                    Some(installation) => {
                        let (sources, found) = Sources::from_installation(
                            &installation,
                            client,
                            default_host,
                            registry,
                            mirror,
                        )?;
                        warnings.extend(found.into_iter().map(Warning::from));
                        sources
                    }
                    None => {
                        warnings.push(Warning::NoInstallation);
                        Sources::registry(registry)
                    }
                }
            }
        })
    }

    /// The remote-module fetcher, sharing the run's client, cache and download permits.
    fn module_fetcher(
        &self,
        client: Option<RegistryClient>,
        cache: &Cache,
        jobs: Arc<Semaphore>,
        oci: Option<OciAccess>,
    ) -> ModuleFetcher {
        let cache_root = cache.root().filter(|_| self.use_cache);
        ModuleFetcher::with_oci(
            client,
            FetcherOptions {
                cache_root: cache_root.map(Path::to_path_buf),
                offline: self.offline,
                versions_ttl: self.versions_ttl,
                jobs,
                limits: ArchiveLimits::default(),
                git: GitOptions {
                    retry: self.http.retry.clone(),
                    ..GitOptions::default()
                },
            },
            oci,
        )
    }

    /// The registry client over the run's HTTP settings, with the CLI configuration
    /// (forced hosts, credentials), and the configuration itself (its
    /// `provider_installation` block, its OCI credentials).
    fn registry_client(
        &self,
        warnings: &mut Vec<Warning>,
        rendered: &mut String,
    ) -> Result<(RegistryClient, CliConfig), SetupError> {
        let env = self
            .environment
            .cli_config(self.flavor == Some(Flavor::OpenTofu));
        let (config, found) = cliconfig::load(&env)?;
        *rendered = format!("{:?} {:?}", config.hosts, config.installations);
        warnings.extend(found.into_iter().map(Warning::CliConfig));
        let client = RegistryClient::new(Http::new(self.http.clone()), config.clone(), env);
        Ok((client, config))
    }
}
