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
//!
//! Version lists are fetched once per module per run and kept for the version-list TTL;
//! an unpinned git ref costs one `git ls-remote` per URL per run; a full commit id costs
//! nothing once cached. Concurrent requests for one identity share one fetch (a
//! `OnceCell` per key, failures included), and every download (git fetch, archive,
//! `ls-remote`) holds a permit of the semaphore shared with provider downloads.
//! `--offline` answers from the cache and names what is missing.

use std::collections::HashMap;
use std::future::Future;
use std::hash::Hash;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use futures::StreamExt as _;
use tempfile::TempDir;
use tokio::io::AsyncWriteExt as _;
use tokio::sync::{OnceCell, Semaphore};
use url::Url;

use super::archive::{read_archive, ArchiveLimits};
use super::cache::{ModuleCache, PackageKey, StoredPackage};
use super::git::{is_full_commit, resolve_ref, Git, GitError, GitOptions, RefTarget, RemoteRefs};
use super::goversion::select_version;
use super::package::{find_subdir, Materialized};
use super::source::{
    parse_package_location, redacted, ArchiveFormat, Checksum, GitSource, HttpSource, ModuleSource,
    RegistryModule,
};
use super::ModuleError;
use crate::net::registry::{RegistryClient, RegistryError};
use crate::net::retry::{retrying, GaveUp, Retryable};

/// How many `X-Terraform-Get` redirections one source may go through.
const MAX_INDIRECTIONS: usize = 5;

/// Plain values the caller fills from its settings.
#[derive(Debug, Clone)]
pub struct FetcherOptions {
    /// The hash cache's root; modules live under `<root>/v2/modules`. `None`: nothing is
    /// kept between runs (packages go to a temporary directory removed at the end).
    pub cache_root: Option<PathBuf>,
    /// Use the cache only; anything missing fails, named.
    pub offline: bool,
    /// How long a cached module version list stays fresh (the provider list TTL).
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

type Cell<V> = Arc<OnceCell<Result<V, ModuleError>>>;

/// [`ModuleFetcher::download`] recurses through `X-Terraform-Get`, so it is boxed.
type BoxFuture<'a, T> = std::pin::Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Per-run memo: one shared computation per key, failures included.
struct Memo<K, V> {
    cells: Mutex<HashMap<K, Cell<V>>>,
}

impl<K: Eq + Hash + Clone, V: Clone> Memo<K, V> {
    fn new() -> Memo<K, V> {
        Memo {
            cells: Mutex::new(HashMap::new()),
        }
    }

    async fn get<F, Fut>(&self, key: &K, compute: F) -> Result<V, ModuleError>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<V, ModuleError>>,
    {
        let cell = {
            let mut cells = match self.cells.lock() {
                Ok(cells) => cells,
                Err(poisoned) => poisoned.into_inner(),
            };
            cells.entry(key.clone()).or_default().clone()
        };
        cell.get_or_init(compute).await.clone()
    }
}

/// Fetches remote modules; clone it freely (an `Arc` inside).
#[derive(Clone)]
pub struct ModuleFetcher {
    inner: Arc<Inner>,
}

struct Inner {
    client: Option<RegistryClient>,
    options: FetcherOptions,
    cache: ModuleCache,
    git: Git,
    /// Run-scoped packages and git scratch repositories; removed when the fetcher goes.
    scratch: OnceLock<Result<TempDir, String>>,
    versions: Memo<String, Arc<Vec<String>>>,
    bases: Memo<String, Url>,
    refs: Memo<String, Arc<RemoteRefs>>,
    packages: Memo<PackageKey, StoredPackage>,
    http: Memo<String, StoredPackage>,
    fetched: AtomicUsize,
    from_cache: AtomicUsize,
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
        ModuleFetcher {
            inner: Arc::new(Inner {
                client,
                cache: ModuleCache::new(options.cache_root.as_deref()),
                git: Git::new(options.git.clone()),
                options,
                scratch: OnceLock::new(),
                versions: Memo::new(),
                bases: Memo::new(),
                refs: Memo::new(),
                packages: Memo::new(),
                http: Memo::new(),
                fetched: AtomicUsize::new(0),
                from_cache: AtomicUsize::new(0),
            }),
        }
    }

    pub fn stats(&self) -> ModuleStats {
        ModuleStats {
            modules_fetched: self.inner.fetched.load(Ordering::Relaxed),
            modules_from_cache: self.inner.from_cache.load(Ordering::Relaxed),
        }
    }

    /// The directory holding the code of one remote module call, fetching it when
    /// needed. `version` is the call's raw `version` argument (registry sources only).
    pub async fn fetch(
        &self,
        source: &ModuleSource,
        version: Option<&str>,
    ) -> Result<FetchedModule, ModuleError> {
        let version = version.filter(|v| !v.trim().is_empty());
        match source {
            ModuleSource::Local(path) => return Err(ModuleError::NotRemote(path.clone())),
            ModuleSource::Unsupported { getter, address } => {
                return Err(ModuleError::Unsupported {
                    getter: getter.clone(),
                    source_str: address.clone(),
                })
            }
            ModuleSource::Registry(_) => {}
            other if version.is_some() => {
                return Err(ModuleError::VersionOnNonRegistry {
                    source_str: other.to_string(),
                })
            }
            _ => {}
        }
        match source {
            ModuleSource::Registry(module) => self.fetch_registry(module, version).await,
            ModuleSource::Git(git) => {
                let (package, identity) = self.git_package(git).await?;
                finish(&package, &git.subdir, None, identity, &source.to_string())
            }
            ModuleSource::Http(http) => {
                let package = self.http_package(http).await?;
                let identity = redacted(http.url.as_str());
                finish(&package, &http.subdir, None, identity, &source.to_string())
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
            ModuleSource::Local(_) | ModuleSource::Unsupported { .. } => {
                unreachable!("returned above")
            }
        }
    }

    fn client(&self) -> Result<&RegistryClient, ModuleError> {
        self.inner.client.as_ref().ok_or_else(|| {
            ModuleError::Setup("no HTTP client was configured for module downloads".to_string())
        })
    }

    /// The run's scratch directory: inside the cache when there is one, so nothing is
    /// written elsewhere, else the system temporary directory.
    fn scratch(&self) -> Result<&Path, ModuleError> {
        let made = self.inner.scratch.get_or_init(|| {
            let builder = tempfile::Builder::new().prefix("run-").to_owned();
            match self.inner.cache.staging_dir() {
                Some(staging) => std::fs::create_dir_all(&staging)
                    .and_then(|()| {
                        remove_stale(&staging);
                        builder.tempdir_in(&staging)
                    })
                    .map_err(|e| format!("cannot create {}: {e}", staging.display())),
                None => builder.tempdir().map_err(|e| e.to_string()),
            }
        });
        match made {
            Ok(dir) => Ok(dir.path()),
            Err(e) => Err(ModuleError::Cache(e.clone())),
        }
    }

    fn new_work_dir(&self) -> Result<TempDir, ModuleError> {
        tempfile::Builder::new()
            .prefix("work-")
            .tempdir_in(self.scratch()?)
            .map_err(|e| ModuleError::Cache(e.to_string()))
    }

    // ---------------------------------------------------------------- registry

    async fn fetch_registry(
        &self,
        module: &RegistryModule,
        constraint: Option<&str>,
    ) -> Result<FetchedModule, ModuleError> {
        let versions = self.registry_versions(module).await?;
        let selection =
            select_version(&versions, constraint).map_err(|e| ModuleError::Version {
                module: module_name(module),
                reason: e.to_string(),
            })?;
        for invalid in &selection.invalid {
            tracing::warn!(
                "the registry at {} returned an invalid version string {invalid:?} for module {}, which tfsum ignored",
                module.host.display(),
                module_name(module)
            );
        }
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

    async fn registry_versions(
        &self,
        module: &RegistryModule,
    ) -> Result<Arc<Vec<String>>, ModuleError> {
        self.inner
            .versions
            .get(&module.package_id(), || async {
                let cache = &self.inner.cache;
                let ttl = (!self.inner.options.offline).then_some(self.inner.options.versions_ttl);
                if let Some(versions) = cache.versions(module, ttl) {
                    return Ok(Arc::new(versions));
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
                Ok(Arc::new(versions))
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
        if let Some(stored) = self.inner.cache.package(key) {
            self.inner.from_cache.fetch_add(1, Ordering::Relaxed);
            return Ok(stored);
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
            .ok_or_else(|| ModuleError::Version {
                module: module_name(module),
                reason: format!("the registry has no download for version {version}"),
            })?;
        let bad_location = |reason: String| ModuleError::BadLocation {
            host: module.host.display(),
            module: module_name(module),
            version: version.to_string(),
            location: location.clone(),
            reason,
        };
        let located = parse_package_location(&location).map_err(|e| bad_location(e.to_string()))?;
        let (package, subdir) = self.download(&located, 0).await?;
        self.inner.fetched.fetch_add(1, Ordering::Relaxed);
        let base = package
            .find_dir(&subdir)
            .map_err(|e| bad_location(e.to_string()))?;
        self.keep(key, &package, &base)
    }

    // ---------------------------------------------------------------- git

    /// A directly named git source: (URL, commit) is the identity.
    async fn git_package(&self, git: &GitSource) -> Result<(StoredPackage, String), ModuleError> {
        let target = self.git_target(git).await?;
        let (commit, want, expand) = match &target {
            RefTarget::Commit { commit, fetch } => (commit.clone(), fetch.clone(), None),
            // Only a full fetch can expand it; the identity is known afterwards.
            RefTarget::Abbreviated(short) => {
                if self.inner.options.offline {
                    return Err(ModuleError::Offline {
                        what: format!("commit {short} of {}", redacted(&git.url)),
                    });
                }
                // Memoised under the abbreviation for this run; kept under the full id.
                let memo = PackageKey::Git {
                    url: git.url.clone(),
                    commit: format!("abbreviated:{short}"),
                };
                let stored = self
                    .inner
                    .packages
                    .get(&memo, || async {
                        let (package, commit) =
                            self.download_git(&git.url, None, Some(short)).await?;
                        self.inner.fetched.fetch_add(1, Ordering::Relaxed);
                        let key = PackageKey::Git {
                            url: git.url.clone(),
                            commit,
                        };
                        match self.inner.cache.package(&key) {
                            Some(stored) => Ok(stored),
                            None => self.keep(&key, &package, ""),
                        }
                    })
                    .await?;
                return Ok((stored, format!("{} at {short}", redacted(&git.url))));
            }
        };
        let key = PackageKey::Git {
            url: git.url.clone(),
            commit: commit.clone(),
        };
        let stored = self
            .inner
            .packages
            .get(&key, || async {
                if let Some(stored) = self.inner.cache.package(&key) {
                    self.inner.from_cache.fetch_add(1, Ordering::Relaxed);
                    return Ok(stored);
                }
                if self.inner.options.offline {
                    return Err(ModuleError::Offline {
                        what: format!("{} at commit {commit}", redacted(&git.url)),
                    });
                }
                let want = want.as_deref().unwrap_or(&commit);
                let (package, fetched) = self.download_git(&git.url, Some(want), expand).await?;
                self.inner.fetched.fetch_add(1, Ordering::Relaxed);
                if fetched != commit {
                    // The ref moved between ls-remote and fetch: keep what was fetched
                    // under its own identity, and this run uses it.
                    let moved = PackageKey::Git {
                        url: git.url.clone(),
                        commit: fetched,
                    };
                    return self.keep(&moved, &package, "");
                }
                self.keep(&key, &package, "")
            })
            .await?;
        Ok((stored, key.to_string()))
    }

    /// What `?ref=` names: a full commit id as is; otherwise `ls-remote` (once per URL
    /// per run), or under `--offline` the commit it last resolved to.
    async fn git_target(&self, git: &GitSource) -> Result<RefTarget, ModuleError> {
        let reference = git.reference.as_deref();
        if let Some(commit) = reference.filter(|r| is_full_commit(r)) {
            return Ok(RefTarget::Commit {
                commit: commit.to_ascii_lowercase(),
                fetch: None,
            });
        }
        if self.inner.options.offline {
            return match self.inner.cache.git_ref(&git.url, reference) {
                Some(commit) => Ok(RefTarget::Commit {
                    commit,
                    fetch: None,
                }),
                None => Err(ModuleError::Offline {
                    what: format!(
                        "the commit of {} at ref {}",
                        redacted(&git.url),
                        reference.unwrap_or("HEAD")
                    ),
                }),
            };
        }
        let refs = self.remote_refs(&git.url).await?;
        let target = resolve_ref(&refs, reference).map_err(|e| git_error(&git.url, e))?;
        if let RefTarget::Commit { commit, .. } = &target {
            self.inner.cache.put_git_ref(&git.url, reference, commit);
        }
        Ok(target)
    }

    /// The versions a registry module's registry lists, as it spells them (once per
    /// module per run, through the cache's version lists): what `tfsum upgrade` and
    /// `tfsum outdated` compare a call's constraint with.
    pub(crate) async fn module_versions(
        &self,
        module: &RegistryModule,
    ) -> Result<Arc<Vec<String>>, ModuleError> {
        self.registry_versions(module).await
    }

    /// The tag names a git repository advertises (one `git ls-remote` per URL per run).
    pub(crate) async fn git_tags(&self, url: &str) -> Result<Vec<String>, ModuleError> {
        if self.inner.options.offline {
            return Err(ModuleError::Offline {
                what: format!("the tags of {}", redacted(url)),
            });
        }
        let refs = self.remote_refs(url).await?;
        Ok(refs
            .keys()
            .filter_map(|name| name.strip_prefix("refs/tags/"))
            .filter(|name| !name.ends_with("^{}"))
            .map(str::to_string)
            .collect())
    }

    async fn remote_refs(&self, url: &str) -> Result<Arc<RemoteRefs>, ModuleError> {
        self.inner
            .refs
            .get(&url.to_string(), || async {
                let _permit = self.permit().await?;
                let refs = self
                    .inner
                    .git
                    .ls_remote(url)
                    .await
                    .map_err(|e| git_error(url, e))?;
                Ok(Arc::new(refs))
            })
            .await
    }

    /// Fetches one commit (by ref name or id; `None` with `expand`: everything, then
    /// the abbreviated id) and reads its tree. A server that refuses a commit id it does
    /// not advertise gets a second, full fetch.
    async fn download_git(
        &self,
        url: &str,
        want: Option<&str>,
        expand: Option<&str>,
    ) -> Result<(Materialized, String), ModuleError> {
        let _permit = self.permit().await?;
        let git = &self.inner.git;
        let mut work = self.new_work_dir()?;
        let mut repo = work.path().join("repo");
        let commit = match git.fetch(url, &repo, want, expand).await {
            Ok(commit) => commit,
            Err(GitError::Failed { .. }) if want.is_some_and(is_full_commit) => {
                work = self.new_work_dir()?;
                repo = work.path().join("repo");
                git.fetch(url, &repo, None, want)
                    .await
                    .map_err(|e| git_error(url, e))?
            }
            Err(e) => return Err(git_error(url, e)),
        };
        let tree = git
            .read_tree(&repo, &commit, &self.inner.options.limits)
            .await
            .map_err(|e| git_error(url, e))?;
        let package = tree.materialize().map_err(|e| ModuleError::Package {
            url: format!("{} at {commit}", redacted(url)),
            reason: e.to_string(),
        })?;
        drop(work);
        Ok((package, commit))
    }

    // ---------------------------------------------------------------- http

    /// A directly named http(s) source: fetched once per run, never persisted (an URL
    /// can change content at any time).
    async fn http_package(&self, http: &HttpSource) -> Result<StoredPackage, ModuleError> {
        // The checksum is part of the identity: a wrong one must fail even after a right one.
        let key = format!("{}|{:?}|{:?}", http.url, http.archive, http.checksum);
        self.inner
            .http
            .get(&key, || async {
                if self.inner.options.offline {
                    return Err(ModuleError::Offline {
                        what: format!(
                            "{} (https module sources are never cached)",
                            redacted(http.url.as_str())
                        ),
                    });
                }
                let bare = ModuleSource::Http(HttpSource {
                    subdir: String::new(),
                    ..http.clone()
                });
                let (package, subdir) = self.download(&bare, 0).await?;
                self.inner.fetched.fetch_add(1, Ordering::Relaxed);
                let base = package
                    .find_dir(&subdir)
                    .map_err(|e| ModuleError::Package {
                        url: redacted(http.url.as_str()),
                        reason: e.to_string(),
                    })?;
                let dir = self.new_work_dir()?.keep();
                write_package(&dir, &package)?;
                Ok(StoredPackage { root: dir, base })
            })
            .await
    }

    /// Downloads what a go-getter address names (a registry's location, an
    /// `X-Terraform-Get` target) and returns it with the subdirectory it selects.
    fn download<'a>(
        &'a self,
        source: &'a ModuleSource,
        depth: usize,
    ) -> BoxFuture<'a, Result<(Materialized, String), ModuleError>> {
        Box::pin(async move {
            match source {
                ModuleSource::Git(git) => {
                    let (want, expand) = match self.git_target(git).await? {
                        RefTarget::Commit { commit, fetch } => {
                            (Some(fetch.unwrap_or(commit)), None)
                        }
                        RefTarget::Abbreviated(short) => (None, Some(short)),
                    };
                    let (package, _) = self
                        .download_git(&git.url, want.as_deref(), expand.as_deref())
                        .await?;
                    Ok((package, git.subdir.clone()))
                }
                ModuleSource::Http(http) => match http.archive {
                    Some(format) => {
                        let package = self
                            .download_archive(&http.url, format, http.checksum.as_ref())
                            .await?;
                        Ok((package, http.subdir.clone()))
                    }
                    None => {
                        if depth >= MAX_INDIRECTIONS {
                            return Err(ModuleError::Download {
                                url: redacted(http.url.as_str()),
                                reason: format!(
                                    "more than {MAX_INDIRECTIONS} X-Terraform-Get redirections"
                                ),
                            });
                        }
                        let target = self.terraform_get(&http.url).await?;
                        let (package, subdir) = self.download(&target, depth + 1).await?;
                        Ok((package, join_subdir(&subdir, &http.subdir)))
                    }
                },
                ModuleSource::Unsupported { getter, address } => Err(ModuleError::Unsupported {
                    getter: getter.clone(),
                    source_str: address.clone(),
                }),
                other => Err(ModuleError::Download {
                    url: other.to_string(),
                    reason: "a remote answer may only point to a git repository or an http(s) URL"
                        .to_string(),
                }),
            }
        })
    }

    /// Asks an http(s) URL where the module is (go-getter's HTTP getter): the
    /// `X-Terraform-Get` header, else a `<meta name="terraform-get">` tag. The value is
    /// a go-getter address taken as it is: go-getter v1.5.2 does not resolve `/x.tgz`
    /// against the page (it becomes a local path; checked with Terraform v1.0.3), and
    /// tfsum refuses local paths in remote answers.
    async fn terraform_get(&self, url: &Url) -> Result<ModuleSource, ModuleError> {
        let shown = redacted(url.as_str());
        let page = {
            let _permit = self.permit().await?;
            self.client()?
                .module_page(url)
                .await
                .map_err(|e| ModuleError::Download {
                    url: shown.clone(),
                    reason: e.to_string(),
                })?
        };
        let header = page
            .headers
            .get("X-Terraform-Get")
            .and_then(|v| v.to_str().ok())
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty());
        let location = header
            .or_else(|| meta_terraform_get(&String::from_utf8_lossy(&page.body)))
            .ok_or_else(|| ModuleError::Download {
                url: shown.clone(),
                reason: "no source URL was returned (no X-Terraform-Get header or terraform-get meta tag)".to_string(),
            })?;
        parse_package_location(&location).map_err(|e| ModuleError::Download {
            url: shown,
            reason: format!("bad X-Terraform-Get {location:?}: {e}"),
        })
    }

    /// Downloads an archive into the scratch directory (capped, retried from the first
    /// byte on transient failures) and reads it.
    async fn download_archive(
        &self,
        url: &Url,
        format: ArchiveFormat,
        checksum: Option<&Checksum>,
    ) -> Result<Materialized, ModuleError> {
        let client = self.client()?;
        let shown = redacted(url.as_str());
        let work = self.new_work_dir()?;
        let file = work.path().join("archive");
        {
            let _permit = self.permit().await?;
            let policy = client.http().retry_policy();
            retrying(policy, || self.download_once(client, url, &file))
                .await
                .map_err(|GaveUp { error, attempts }| match error {
                    Attempt::Transient(e) => ModuleError::Download {
                        url: shown.clone(),
                        reason: format!("{e} (gave up after {attempts} attempts)"),
                    },
                    Attempt::Permanent(reason) => ModuleError::Download {
                        url: shown.clone(),
                        reason,
                    },
                })?;
        }
        let limits = self.inner.options.limits.clone();
        let checksum = checksum.cloned();
        let read = tokio::task::spawn_blocking(move || {
            verify_checksum(&file, checksum.as_ref())?;
            read_archive(&file, format, &limits)
                .map_err(|e| e.to_string())
                .and_then(|tree| tree.materialize().map_err(|e| e.to_string()))
        })
        .await
        .map_err(|e| ModuleError::Download {
            url: shown.clone(),
            reason: format!("reading the archive failed: {e}"),
        })?;
        drop(work);
        read.map_err(|reason| ModuleError::Package { url: shown, reason })
    }

    async fn download_once(
        &self,
        client: &RegistryClient,
        url: &Url,
        file: &Path,
    ) -> Result<(), Attempt> {
        let cap = self.inner.options.limits.max_download_bytes;
        let (length, stream) = client
            .http()
            .get_stream(url)
            .await
            .map_err(Attempt::from_registry)?;
        let too_large = || {
            Attempt::Permanent(format!(
                "the archive is larger than the limit of {cap} bytes"
            ))
        };
        if length.is_some_and(|n| n > cap) {
            return Err(too_large());
        }
        let mut out = tokio::fs::File::create(file)
            .await
            .map_err(|e| Attempt::Permanent(format!("cannot write {}: {e}", file.display())))?;
        let mut stream = std::pin::pin!(stream);
        let mut received = 0u64;
        while let Some(chunk) = stream.next().await {
            let chunk = chunk.map_err(Attempt::from_registry)?;
            received += chunk.len() as u64;
            if received > cap {
                return Err(too_large());
            }
            out.write_all(&chunk)
                .await
                .map_err(|e| Attempt::Permanent(format!("cannot write {}: {e}", file.display())))?;
        }
        out.flush()
            .await
            .map_err(|e| Attempt::Permanent(format!("cannot write {}: {e}", file.display())))?;
        Ok(())
    }

    // ---------------------------------------------------------------- storage

    /// Keeps a package: in the persistent cache when there is one, else in the run's
    /// scratch directory.
    fn keep(
        &self,
        key: &PackageKey,
        package: &Materialized,
        base: &str,
    ) -> Result<StoredPackage, ModuleError> {
        let cache_error = |e: std::io::Error| ModuleError::Cache(format!("storing {key}: {e}"));
        if let Some(stored) = self
            .inner
            .cache
            .store(key, package, base)
            .map_err(cache_error)?
        {
            return Ok(stored);
        }
        let dir = self.new_work_dir()?.keep();
        write_package(&dir, package)?;
        Ok(StoredPackage {
            root: dir,
            base: base.to_string(),
        })
    }

    async fn permit(&self) -> Result<tokio::sync::SemaphorePermit<'_>, ModuleError> {
        self.inner
            .options
            .jobs
            .acquire()
            .await
            .map_err(|_| ModuleError::Setup("the download semaphore was closed".to_string()))
    }
}

enum Attempt {
    Transient(RegistryError),
    Permanent(String),
}

impl Attempt {
    fn from_registry(e: RegistryError) -> Attempt {
        if e.is_transient() {
            Attempt::Transient(e)
        } else {
            Attempt::Permanent(e.to_string())
        }
    }
}

impl Retryable for Attempt {
    fn is_transient(&self) -> bool {
        matches!(self, Attempt::Transient(_))
    }

    fn retry_after(&self) -> Option<Duration> {
        match self {
            Attempt::Transient(e) => e.retry_after(),
            Attempt::Permanent(_) => None,
        }
    }
}

/// Removes what killed runs left in the staging area (a day old: no run lasts that long,
/// so nothing still in use goes). Best effort.
fn remove_stale(staging: &Path) {
    let Ok(entries) = std::fs::read_dir(staging) else {
        return;
    };
    let day = Duration::from_secs(24 * 60 * 60);
    for entry in entries.flatten() {
        let old = entry
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age > day);
        if old {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// go-getter's `?checksum=`: the downloaded archive must have the digest given.
fn verify_checksum(file: &Path, checksum: Option<&Checksum>) -> Result<(), String> {
    use sha2::Digest as _;
    let Some(checksum) = checksum else {
        return Ok(());
    };
    let bytes = std::fs::read(file).map_err(|e| format!("cannot read the download: {e}"))?;
    let (got, want) = match checksum {
        Checksum::Sha256(want) => (sha2::Sha256::digest(&bytes).to_vec(), want.to_vec()),
        Checksum::Sha512(want) => (sha2::Sha512::digest(&bytes).to_vec(), want.clone()),
    };
    if got != want {
        return Err(format!(
            "checksum mismatch: the archive has {}, the source asks for {}",
            hex::encode(got),
            hex::encode(want)
        ));
    }
    Ok(())
}

fn write_package(dir: &Path, package: &Materialized) -> Result<(), ModuleError> {
    package
        .write_to(dir)
        .map_err(|e| ModuleError::Cache(format!("cannot write {}: {e}", dir.display())))
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
        reason: e.to_string(),
    })?;
    if !dir.is_dir() {
        return Err(ModuleError::Package {
            url: source.to_string(),
            reason: format!("{} is not a directory", dir.display()),
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

fn registry_error(module: &RegistryModule, error: RegistryError) -> ModuleError {
    ModuleError::Registry {
        module: module_name(module),
        error,
    }
}

fn git_error(url: &str, error: GitError) -> ModuleError {
    ModuleError::Git {
        source_str: format!("git::{}", redacted(url)),
        reason: error.to_string(),
    }
}

/// The `content` of a `<meta name="terraform-get" content="…">` tag (go-getter's
/// `parseMeta`), attributes in either order, quotes single or double.
fn meta_terraform_get(html: &str) -> Option<String> {
    let lower = html.to_ascii_lowercase();
    let mut from = 0;
    while let Some(start) = lower[from..].find("<meta") {
        let start = from + start;
        let end = start + lower[start..].find('>')?;
        let tag = &html[start..end];
        if attribute(tag, "name").is_some_and(|n| n.eq_ignore_ascii_case("terraform-get")) {
            return attribute(tag, "content").filter(|c| !c.is_empty());
        }
        from = end;
    }
    None
}

fn attribute(tag: &str, name: &str) -> Option<String> {
    let lower = tag.to_ascii_lowercase();
    let mut from = 0;
    while let Some(i) = lower[from..].find(name) {
        let i = from + i;
        from = i + name.len();
        let before_ok = i == 0 || lower.as_bytes()[i - 1].is_ascii_whitespace();
        let rest = tag[i + name.len()..].trim_start();
        if !before_ok || !rest.starts_with('=') {
            continue;
        }
        let value = rest[1..].trim_start();
        let quote = value.chars().next()?;
        if quote == '"' || quote == '\'' {
            let inner = &value[1..];
            return inner.find(quote).map(|j| inner[..j].to_string());
        }
        let end = value.find(char::is_whitespace).unwrap_or(value.len());
        return Some(value[..end].to_string());
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meta_tags() {
        for (html, want) in [
            (
                r#"<html><head><meta name="terraform-get" content="git::https://h/r.git?ref=v1"></head>"#,
                Some("git::https://h/r.git?ref=v1"),
            ),
            (
                r#"<META content='./m.zip' NAME='terraform-get' />"#,
                Some("./m.zip"),
            ),
            (
                r#"<meta name="description" content="x"><meta name=terraform-get content=/a.tgz>"#,
                Some("/a.tgz"),
            ),
            (r#"<meta name="go-import" content="x">"#, None),
            ("no tags at all", None),
        ] {
            assert_eq!(meta_terraform_get(html).as_deref(), want, "{html}");
        }
    }

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
        ];
        for (raw, version, want) in cases {
            let source = super::super::parse_source(raw).unwrap();
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
            super::super::parse_source("git::https://example.invalid/r.git?ref=v1").unwrap();
        let err = fetcher.fetch(&source, None).await.unwrap_err().to_string();
        assert!(
            err.contains("git command \"/nonexistent/git-for-tfsum\" was not found"),
            "{err}"
        );
    }
}
