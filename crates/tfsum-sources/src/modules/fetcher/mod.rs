//! [`ModuleFetcher`]: one per run; turns a remote [`ModuleSource`] into a directory of
//! configuration files, fetching each package at most once per run and, for immutable
//! identities, at most once ever.
//!
//! | source                | per-run identity          | persistent identity          |
//! |-----------------------|---------------------------|------------------------------|
//! | registry module       | (module, chosen version)  | the same                     |
//! | git                   | (URL, commit)             | the same                     |
//! | https archive / page  | URL                       | none: fetched once per run   |
//! | absolute directory    | read in place             | none needed                  |
//! | `oci://` (OpenTofu)   | manifest digest           | the same                     |
//!
//! Version lists are fetched once per module per run and kept for the version-list TTL;
//! an unpinned git ref costs one `git ls-remote` per repository per run, and nothing
//! while the commit it was listed at is younger than that TTL; a full commit id costs
//! nothing once cached. Concurrent requests for one identity share one fetch (a
//! `OnceCell` per key, failures included), and every download (git fetch, archive,
//! `ls-remote`) holds a permit of the semaphore shared with provider downloads.
//! `--offline` answers from the cache and names what is missing.

mod from_git;
mod http;
mod memo;
mod oci;
mod registry;
mod store;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use tempfile::TempDir;
use tokio::sync::Semaphore;
use url::Url;

use super::archive::ArchiveLimits;
use super::cache::{ModuleCache, PackageKey, StoredPackage};
use super::git::{Git, RefTarget, RemoteRefs};
use super::package::find_subdir;
use super::{KeepError, ModuleError, PackageFault};
use memo::Memo;
use tfsum_disk::leftovers;
use tfsum_net::git::GitOptions;
use tfsum_net::oci::OciAccess;
use tfsum_net::registry::RegistryClient;
use tfsum_vocab::goversion::VersionList;
use tfsum_vocab::module_source::{redacted, ModuleSource, OciSource, RegistryModule};

/// Plain values the caller fills from its settings.
#[derive(Debug, Clone)]
pub struct FetcherOptions {
    /// The hash cache's root; modules live under `<root>/v2/modules3`. `None`: nothing is
    /// kept between runs (packages go to a temporary directory removed at the end).
    pub cache_root: Option<PathBuf>,
    /// Use the cache only; anything missing fails, named.
    pub offline: bool,
    /// How long a cached module version list, and the commit a git ref was listed at,
    /// stay fresh (the provider list TTL).
    pub versions_ttl: Duration,
    /// Shared with provider downloads: bounds concurrent network work.
    pub jobs: Arc<Semaphore>,
    pub limits: ArchiveLimits,
    pub git: GitOptions,
}

impl Default for FetcherOptions {
    fn default() -> FetcherOptions {
        FetcherOptions {
            cache_root: None,
            offline: false,
            versions_ttl: Duration::from_secs(300),
            jobs: Arc::new(Semaphore::new(8)),
            limits: ArchiveLimits::default(),
            git: GitOptions::default(),
        }
    }
}

/// The code of one remote module call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchedModule {
    /// The whole package: local calls made inside it may not leave it
    /// ([`super::resolve_in_package`]).
    pub package_root: PathBuf,
    /// The module's directory: the package root plus any `//subdir`.
    pub dir: PathBuf,
    /// The registry version chosen (go-version's canonical text), for registry sources.
    pub version: Option<String>,
    /// What was fetched, for messages: `host/ns/name/system 1.2.0`, `URL at <commit>`, …
    pub identity: String,
}

/// Counts for the run's report.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ModuleStats {
    /// Packages downloaded (a git fetch or an archive download).
    pub modules_fetched: usize,
    /// Packages taken from the persistent module cache.
    pub modules_from_cache: usize,
}

/// Fetches remote modules; clone it freely (an `Arc` inside).
#[derive(Clone)]
pub struct ModuleFetcher {
    inner: Arc<Inner>,
}

/// How many packages may be unpacked in memory at once. With the configuration-bytes
/// cap of [`super::ArchiveLimits`] this bounds what unpacking can hold, whatever `--jobs`.
const UNPACKING: usize = 2;

struct Inner {
    client: Option<RegistryClient>,
    options: FetcherOptions,
    cache: ModuleCache,
    git: Git,
    /// Run-scoped packages and git scratch repositories; removed when the fetcher goes.
    scratch: OnceLock<Result<leftovers::TempDir, KeepError>>,
    /// Parsed version lists, by lowercase `host/ns/name/system`.
    versions: Memo<String, Arc<VersionList>>,
    bases: Memo<String, Url>,
    /// `ls-remote` answers, by [`from_git::repository_key`].
    refs: Memo<String, Arc<RemoteRefs>>,
    /// What each `?ref=` names, by (repository key, ref as written).
    targets: Memo<(String, Option<String>), (RefTarget, from_git::Answer)>,
    /// Registry packages, by (module, version).
    packages: Memo<PackageKey, StoredPackage>,
    /// Git packages, by commit id (whatever URL or subdirectory reached them).
    commits: Memo<String, StoredPackage>,
    /// Abbreviated ids, by (repository, abbreviation): the package and the full id.
    abbreviated: Memo<(String, String), (StoredPackage, String)>,
    http: Memo<String, StoredPackage>,
    /// `oci://` packages, by manifest digest.
    oci_packages: Memo<PackageKey, StoredPackage>,
    /// The run's OCI client, for `oci://` sources; `None` offline or without one.
    oci_access: Option<OciAccess>,
    /// Packages held in memory at once while they are unpacked: each may take up to the
    /// configuration-bytes cap, so their number is bounded apart from `--jobs`.
    unpacking: tokio::sync::Semaphore,
    fetched: AtomicUsize,
    from_cache: AtomicUsize,
    /// Version lists parsed (once per module per run).
    lists_parsed: AtomicUsize,
}

impl std::fmt::Debug for ModuleFetcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModuleFetcher")
            .field("options", &self.inner.options)
            .finish()
    }
}

impl ModuleFetcher {
    /// `client` talks to registries and downloads archives; without one only git,
    /// absolute directories and the cache are available.
    pub fn new(client: Option<RegistryClient>, options: FetcherOptions) -> ModuleFetcher {
        ModuleFetcher::with_oci(client, options, None)
    }

    /// [`ModuleFetcher::new`], reaching OCI registries through `oci` for OpenTofu's
    /// `oci://` sources.
    pub fn with_oci(
        client: Option<RegistryClient>,
        options: FetcherOptions,
        oci: Option<OciAccess>,
    ) -> ModuleFetcher {
        ModuleFetcher {
            inner: Arc::new(Inner {
                client,
                cache: ModuleCache::new(options.cache_root.as_deref(), options.limits.clone()),
                git: Git::new(options.git.clone()),
                options,
                scratch: OnceLock::new(),
                versions: Memo::new(),
                bases: Memo::new(),
                refs: Memo::new(),
                targets: Memo::new(),
                packages: Memo::new(),
                commits: Memo::new(),
                abbreviated: Memo::new(),
                http: Memo::new(),
                oci_packages: Memo::new(),
                oci_access: oci,
                unpacking: tokio::sync::Semaphore::new(UNPACKING),
                fetched: AtomicUsize::new(0),
                from_cache: AtomicUsize::new(0),
                lists_parsed: AtomicUsize::new(0),
            }),
        }
    }

    pub fn stats(&self) -> ModuleStats {
        ModuleStats {
            modules_fetched: self.inner.fetched.load(Ordering::Relaxed),
            modules_from_cache: self.inner.from_cache.load(Ordering::Relaxed),
        }
    }

    /// What the module cache refused and could not store so far, for the run's
    /// warnings.
    pub fn cache_health(&self) -> tfsum_disk::cache::Health {
        self.inner.cache.health()
    }

    /// The directory holding the code of one remote module call, fetching it when
    /// needed. `version` is the call's raw `version` argument (registry sources only).
    pub async fn fetch(
        &self,
        source: &ModuleSource,
        version: Option<&str>,
    ) -> Result<FetchedModule, ModuleError> {
        let version = version.filter(|v| !v.trim().is_empty());
        let fetched_here = matches!(
            source,
            ModuleSource::Git(_) | ModuleSource::Http(_) | ModuleSource::Directory { .. }
        );
        if version.is_some() && fetched_here {
            return Err(ModuleError::VersionOnNonRegistry {
                source_str: source.to_string(),
            });
        }
        if version.is_some() && matches!(source, ModuleSource::Oci(_)) {
            return Err(ModuleError::VersionOnOci {
                source_str: source.to_string(),
            });
        }
        match source {
            ModuleSource::Local(path) => Err(ModuleError::NotRemote(path.clone())),
            ModuleSource::Unsupported { getter, address } => Err(ModuleError::Unsupported {
                getter: getter.clone(),
                source_str: address.clone(),
            }),
            ModuleSource::Registry(module) => self.fetch_registry(module, version).await,
            ModuleSource::Git(git) => {
                let (package, commit) = self.git_package(git).await?;
                let identity = format!("{} at {commit}", redacted(&git.url));
                finish(&package, &git.subdir, None, identity, &source.to_string())
            }
            ModuleSource::Http(http) => {
                let package = self.http_package(http).await?;
                let identity = redacted(http.url.as_str());
                finish(&package, &http.subdir, None, identity, &source.to_string())
            }
            ModuleSource::Oci(oci) => {
                let package = self.oci_package(oci).await?;
                let shown = ModuleSource::Oci(OciSource {
                    subdir: String::new(),
                    ..oci.clone()
                });
                finish(
                    &package,
                    &oci.subdir,
                    None,
                    shown.to_string(),
                    &source.to_string(),
                )
            }
            ModuleSource::Directory { path, subdir } => {
                let package = StoredPackage {
                    root: path.clone(),
                    base: String::new(),
                };
                finish(
                    &package,
                    subdir,
                    None,
                    path.display().to_string(),
                    &source.to_string(),
                )
            }
        }
    }

    fn client(&self) -> Result<&RegistryClient, ModuleError> {
        self.inner
            .client
            .as_ref()
            .ok_or_else(|| ModuleError::NoHttpClient)
    }

    /// The run's scratch directory: inside the cache when there is one, so nothing is
    /// written elsewhere, else the system temporary directory. Claimed, so that what a
    /// killed run left in the staging area is removed by the next ([`leftovers`]).
    fn scratch(&self) -> Result<&Path, ModuleError> {
        let made = self.inner.scratch.get_or_init(|| {
            let parent = match self.inner.cache.staging_dir() {
                Ok(Some(staging)) => {
                    leftovers::sweep(&staging);
                    staging
                }
                Ok(None) => std::env::temp_dir(),
                Err(e) => return Err(KeepError::Staging(Arc::new(e))),
            };
            leftovers::TempDir::new_in(&parent).map_err(|error| KeepError::Scratch {
                dir: parent.clone(),
                error: Arc::new(error),
            })
        });
        match made {
            Ok(dir) => Ok(dir.path()),
            Err(e) => Err(ModuleError::Keep(e.clone())),
        }
    }

    fn new_work_dir(&self) -> Result<TempDir, ModuleError> {
        tempfile::Builder::new()
            .prefix("work-")
            .tempdir_in(self.scratch()?)
            .map_err(|e| ModuleError::Keep(KeepError::WorkDir(Arc::new(e))))
    }

    /// A place among the packages being unpacked in memory ([`UNPACKING`]).
    async fn unpack_permit(&self) -> Result<tokio::sync::SemaphorePermit<'_>, ModuleError> {
        self.inner
            .unpacking
            .acquire()
            .await
            .map_err(|_| ModuleError::Closed("unpacking"))
    }

    async fn permit(&self) -> Result<tokio::sync::SemaphorePermit<'_>, ModuleError> {
        self.inner
            .options
            .jobs
            .acquire()
            .await
            .map_err(|_| ModuleError::Closed("download"))
    }
}

/// The module directory: the package's base plus the caller's `//subdir`, which must
/// exist, be a directory and stay inside the package.
fn finish(
    package: &StoredPackage,
    subdir: &str,
    version: Option<String>,
    identity: String,
    source: &str,
) -> Result<FetchedModule, ModuleError> {
    let base = if package.base.is_empty() {
        package.root.clone()
    } else {
        package.root.join(&package.base)
    };
    let dir = find_subdir(&base, subdir).map_err(|e| ModuleError::Package {
        url: source.to_string(),
        error: e.into(),
    })?;
    if !dir.is_dir() {
        return Err(ModuleError::Package {
            url: source.to_string(),
            error: PackageFault::NotADirectory(dir),
        });
    }
    Ok(FetchedModule {
        package_root: package.root.clone(),
        dir,
        version,
        identity,
    })
}

fn join_subdir(first: &str, second: &str) -> String {
    match (first.is_empty(), second.is_empty()) {
        (true, _) => second.to_string(),
        (false, true) => first.to_string(),
        (false, false) => format!("{}/{second}", first.trim_end_matches('/')),
    }
}

/// `host/ns/name/system` for messages (the public registry host included, so the
/// message says where tfsum looked).
fn module_name(module: &RegistryModule) -> String {
    format!("{}/{}", module.host.display(), module.path())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn local_unsupported_and_versions_on_non_registry_fail_early() {
        let fetcher = ModuleFetcher::new(None, FetcherOptions::default());
        let cases = [
            ("./x", None, "is a local path"),
            (
                "s3::https://s3.amazonaws.com/b/m.zip",
                None,
                "needs the s3 getter",
            ),
            (
                "git::https://example.invalid/r.git",
                Some("1.0.0"),
                "cannot apply a version constraint",
            ),
            (
                "https://example.invalid/m.zip",
                Some(">= 1"),
                "cannot apply a version constraint",
            ),
            (
                "oci://example.invalid/modules/net?tag=1.0.0",
                Some("1.0.0"),
                "because it doesn't come from a module registry",
            ),
            (
                "oci://example.invalid/modules/net",
                None,
                "no OCI client is available",
            ),
        ];
        for (raw, version, want) in cases {
            let source = tfsum_vocab::module_source::parse_source_for(
                raw,
                tfsum_vocab::addr::OPENTOFU_REGISTRY,
            )
            .unwrap();
            let err = fetcher
                .fetch(&source, version)
                .await
                .unwrap_err()
                .to_string();
            assert!(err.contains(want), "{raw}: {err}");
        }
        // A blank version is no version.
        let dir = tempfile::tempdir().unwrap();
        let source = ModuleSource::Directory {
            path: dir.path().to_path_buf(),
            subdir: String::new(),
        };
        let got = fetcher.fetch(&source, Some("  ")).await.unwrap();
        assert_eq!(got.dir, dir.path());
        assert_eq!(fetcher.stats(), ModuleStats::default());
    }

    #[tokio::test]
    async fn missing_git_is_one_clear_error() {
        let options = FetcherOptions {
            git: GitOptions {
                program: PathBuf::from("/nonexistent/git-for-tfsum"),
                ..GitOptions::default()
            },
            ..FetcherOptions::default()
        };
        let fetcher = ModuleFetcher::new(None, options);
        let source =
            tfsum_vocab::module_source::parse_source("git::https://example.invalid/r.git?ref=v1")
                .unwrap();
        let err = fetcher.fetch(&source, None).await.unwrap_err().to_string();
        assert!(
            err.contains("git command \"/nonexistent/git-for-tfsum\" was not found"),
            "{err}"
        );
    }
}
