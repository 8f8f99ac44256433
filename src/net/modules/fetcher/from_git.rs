//! Git sources, named directly or reached through a registry location or an
//! `X-Terraform-Get` answer: `?ref=` resolved to a commit (one `ls-remote` per
//! repository per run), then one fetch per (repository, commit), through the runner in
//! [`crate::net::modules::git`].

use std::sync::atomic::Ordering;
use std::sync::Arc;

use super::super::cache::{PackageKey, StoredPackage};
use super::super::git::{is_full_commit, resolve_ref, GitError, RefTarget, RemoteRefs};
use super::super::package::Materialized;
use super::super::source::{redacted, GitSource};
use super::super::ModuleError;
use super::ModuleFetcher;

impl ModuleFetcher {
    /// A directly named git source: (URL, commit) is the identity.
    pub(super) async fn git_package(
        &self,
        git: &GitSource,
    ) -> Result<(StoredPackage, String), ModuleError> {
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
    pub(super) async fn git_target(&self, git: &GitSource) -> Result<RefTarget, ModuleError> {
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
    pub(super) async fn download_git(
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
}

pub(super) fn git_error(url: &str, error: GitError) -> ModuleError {
    ModuleError::Git {
        source_str: format!("git::{}", redacted(url)),
        reason: error.to_string(),
    }
}
