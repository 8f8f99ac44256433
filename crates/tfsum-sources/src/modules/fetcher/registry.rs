//! Registry modules (docs/spec/modules.md §2, §3): the version list (once per module per
//! run, kept for the version-list TTL), the version choice, and the package behind the
//! chosen version's download location, which is another go-getter address
//! ([`super::http`] follows it).

use std::sync::atomic::Ordering;
use std::sync::Arc;

use url::Url;

use super::super::cache::{GitAlias, PackageKey, StoredPackage};
use super::super::{LocationError, ModuleError};
use super::http::Got;
use super::store::stored_base;
use super::{finish, module_name, FetchedModule, ModuleFetcher};
use tfsum_net::registry::RegistryError;
use tfsum_vocab::goversion::{select_version, VersionList};
use tfsum_vocab::module_source::{parse_package_location, RegistryModule};

impl ModuleFetcher {
    pub(super) async fn fetch_registry(
        &self,
        module: &RegistryModule,
        constraint: Option<&str>,
    ) -> Result<FetchedModule, ModuleError> {
        let versions = self.registry_versions(module).await?;
        let selection =
            select_version(&versions, constraint).map_err(|error| ModuleError::Version {
                module: module_name(module),
                error,
            })?;
        let version = selection.chosen.to_string();
        let key = PackageKey::Registry {
            package_id: module.package_id(),
            version: version.clone(),
        };
        let package = self
            .inner
            .packages
            .get(&key, || self.registry_package(module, &version, &key))
            .await?;
        let identity = format!("{} {version}", module_name(module));
        finish(
            &package,
            &module.subdir,
            Some(version),
            identity,
            &module.to_string(),
        )
    }

    /// The versions a registry module's registry lists (once per module per run, through
    /// the cache's version lists): what `tfsum upgrade` and `tfsum outdated` compare a
    /// call's constraint with.
    pub async fn module_versions(
        &self,
        module: &RegistryModule,
    ) -> Result<Arc<VersionList>, ModuleError> {
        self.registry_versions(module).await
    }

    async fn registry_versions(
        &self,
        module: &RegistryModule,
    ) -> Result<Arc<VersionList>, ModuleError> {
        self.inner
            .versions
            .get(&module.package_id(), || async {
                // Once per list, however many calls choose from it.
                let parsed = |versions: &[String]| {
                    self.inner.lists_parsed.fetch_add(1, Ordering::Relaxed);
                    let list = VersionList::parse(versions);
                    for invalid in list.invalid() {
                        tracing::warn!(
                            "the registry at {} returned an invalid version string {invalid:?} for module {}, which tfsum ignored",
                            module.host.display(),
                            module_name(module)
                        );
                    }
                    Arc::new(list)
                };
                let cache = &self.inner.cache;
                let ttl = (!self.inner.options.offline).then_some(self.inner.options.versions_ttl);
                if let Some(versions) = cache.versions(module, ttl) {
                    return Ok(parsed(&versions));
                }
                if self.inner.options.offline {
                    return Err(ModuleError::Offline {
                        what: format!("the version list of module {}", module_name(module)),
                    });
                }
                let client = self.client()?;
                let base = self.modules_base(module).await?;
                let versions = client
                    .module_versions(&module.host, &base, &module.path())
                    .await
                    .map_err(|error| registry_error(module, error))?
                    .ok_or_else(|| ModuleError::ModuleNotFound {
                        module: module_name(module),
                        host: module.host.display(),
                    })?;
                cache.put_versions(module, &versions);
                Ok(parsed(&versions))
            })
            .await
    }

    async fn modules_base(&self, module: &RegistryModule) -> Result<Url, ModuleError> {
        self.inner
            .bases
            .get(&module.host.as_str().to_string(), || async {
                self.client()?
                    .modules_base(&module.host)
                    .await
                    .map_err(|error| registry_error(module, error))?
                    .ok_or_else(|| ModuleError::NoModuleRegistry {
                        host: module.host.display(),
                    })
            })
            .await
    }

    async fn registry_package(
        &self,
        module: &RegistryModule,
        version: &str,
        key: &PackageKey,
    ) -> Result<StoredPackage, ModuleError> {
        let cache = &self.inner.cache;
        if let Some(stored) = cache.package(key) {
            self.inner.from_cache.fetch_add(1, Ordering::Relaxed);
            return Ok(stored);
        }
        // Served from a git commit: that commit's package, checked against its id.
        if let Some(alias) = cache.git_alias(key) {
            let commit = PackageKey::Git {
                commit: alias.commit.clone(),
            };
            if let Some(stored) = cache.package(&commit) {
                self.inner.from_cache.fetch_add(1, Ordering::Relaxed);
                return Ok(StoredPackage {
                    root: stored.root,
                    base: alias.base,
                });
            }
        }
        if self.inner.options.offline {
            return Err(ModuleError::Offline {
                what: format!("module {} v{version}", module_name(module)),
            });
        }
        let client = self.client()?;
        let base = self.modules_base(module).await?;
        let location = client
            .module_location(&module.host, &base, &module.path(), version)
            .await
            .map_err(|error| registry_error(module, error))?
            .ok_or_else(|| ModuleError::NoDownload {
                module: module_name(module),
                version: version.to_string(),
            })?;
        let bad_location = |error: LocationError| ModuleError::BadLocation {
            host: module.host.display(),
            module: module_name(module),
            version: version.to_string(),
            location: tfsum_vocab::module_source::redacted_source(&location),
            error: Box::new(error),
        };
        let located = parse_package_location(&location).map_err(|e| bad_location(e.into()))?;
        match self.download(&located, 0).await? {
            (Got::Unpacked(package), subdir) => {
                self.inner.fetched.fetch_add(1, Ordering::Relaxed);
                let base = package
                    .find_dir(&subdir)
                    .map_err(|e| bad_location(e.into()))?;
                self.keep(key, &package, &base, None)
            }
            (Got::Git { package, commit }, subdir) => {
                let base = stored_base(&package, &subdir).map_err(|e| bad_location(e.into()))?;
                cache.put_git_alias(
                    key,
                    &GitAlias {
                        commit,
                        base: base.clone(),
                    },
                );
                Ok(StoredPackage {
                    root: package.root,
                    base,
                })
            }
        }
    }
}

fn registry_error(module: &RegistryModule, error: RegistryError) -> ModuleError {
    ModuleError::Registry {
        module: module_name(module),
        error,
    }
}

#[cfg(test)]
mod tests {
    use super::super::{FetcherOptions, ModuleFetcher};
    use crate::modules::cache::{ModuleCache, PackageKey};
    use crate::modules::package::Materialized;
    use std::sync::atomic::Ordering;
    use std::sync::Arc;
    use tfsum_vocab::module_source::{parse_source, ModuleSource};

    /// Calls at many distinct constraints read the module's version list once: parsed
    /// once, then each call only compares (it was parsed again per call, O(N²)).
    #[tokio::test]
    async fn a_version_list_is_parsed_once_per_run() {
        let dir = tempfile::tempdir().unwrap();
        let source = parse_source("example.com/acme/big/aws").unwrap();
        let ModuleSource::Registry(module) = &source else {
            panic!()
        };
        let versions: Vec<String> = (0..3000).map(|i| format!("1.0.{i}")).collect();
        let cache = ModuleCache::new(Some(dir.path()), Default::default());
        cache.put_versions(module, &versions);
        let mut package = Materialized::default();
        package
            .files
            .insert("main.tf".into(), Arc::new(b"# big\n".to_vec()));
        let key = PackageKey::Registry {
            package_id: module.package_id(),
            version: "1.0.2999".into(),
        };
        cache.store(&key, &package, "", None).unwrap();
        let fetcher = ModuleFetcher::new(
            None,
            FetcherOptions {
                cache_root: Some(dir.path().to_path_buf()),
                offline: true,
                ..FetcherOptions::default()
            },
        );
        for i in 0..100 {
            let got = fetcher
                .fetch(&source, Some(&format!("!= 1.0.{i}")))
                .await
                .unwrap();
            assert_eq!(got.version.as_deref(), Some("1.0.2999"));
        }
        assert_eq!(fetcher.inner.lists_parsed.load(Ordering::Relaxed), 1);
    }
}
