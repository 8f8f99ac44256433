//! Git sources, named directly or reached through a registry location or an
//! `X-Terraform-Get` answer, all through one path, so each repository is listed once
//! and each commit fetched once per run however it was reached:
//!
//! - `?ref=` becomes a commit with one `git ls-remote` per repository per run, memoised
//!   by [`repository_key`] (URL spellings of one repository share it), unless the cache
//!   learnt that ref's commit from the remote within the versions TTL;
//! - a commit's package is memoised by the commit id alone: git ids name content, so
//!   the same commit from two URLs is the same package, and the `//subdir` is applied
//!   after ([`super::finish`]).
//!
//! The commands themselves are the runner's ([`crate::modules::git`]).

use std::sync::atomic::Ordering;
use std::sync::Arc;

use url::Url;

use super::super::cache::{PackageKey, StoredPackage};
use super::super::git::{is_full_commit, resolve_ref, CommitObjects, RefTarget, RemoteRefs};
use super::super::package::Materialized;
use super::super::ModuleError;
use super::ModuleFetcher;
use tfsum_net::git::GitError;
use tfsum_vocab::module_source::{redacted, scrub_credentials, GitSource};

/// Hosts known to serve `owner/repo` and `owner/repo.git` as one repository.
const DOT_GIT_OPTIONAL: [&str; 4] = ["github.com", "gitlab.com", "bitbucket.org", "codeberg.org"];

/// The repository a git URL names, for the per-run memo: scheme and host lowercased,
/// a default port and a trailing `/` dropped, and on [`DOT_GIT_OPTIONAL`] hosts a
/// `.git` suffix too. Anything else (another server may tell `x` from `x.git`) is
/// kept as written; the commit memo still joins what this key cannot.
pub(crate) fn repository_key(url: &str) -> String {
    let Ok(mut parsed) = Url::parse(url) else {
        return url.to_string();
    };
    let host = parsed.host_str().map(str::to_ascii_lowercase);
    if let Some(host) = &host {
        let _ = parsed.set_host(Some(host));
    }
    let default_port = match parsed.scheme() {
        "ssh" => Some(22),
        "git" => Some(9418),
        _ => None,
    };
    if parsed.port().is_some() && parsed.port() == default_port {
        let _ = parsed.set_port(None);
    }
    let mut path = parsed.path().trim_end_matches('/').to_string();
    if host
        .as_deref()
        .is_some_and(|h| DOT_GIT_OPTIONAL.contains(&h))
    {
        path = path.trim_end_matches(".git").to_string();
    }
    parsed.set_path(&path);
    parsed.to_string()
}

/// Whether a ref's commit can have moved since it was learnt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Answer {
    /// A full commit id as written, or what the remote listed in this run.
    Current,
    /// What the cache remembered: listed by the remote within the versions TTL, or at
    /// any age under `--offline`.
    Remembered,
}

impl ModuleFetcher {
    /// The package of the commit a git source's ref names, and that commit.
    pub(super) async fn git_package(
        &self,
        git: &GitSource,
    ) -> Result<(StoredPackage, String), ModuleError> {
        match self.git_target(git).await? {
            (RefTarget::Commit { commit, fetch }, Answer::Remembered)
                if !self.inner.options.offline =>
            {
                match self
                    .commit_package(&git.url, &commit, fetch.as_deref())
                    .await
                {
                    Ok(stored) => Ok((stored, commit)),
                    Err(error) => self.relisted_package(git, &commit, error).await,
                }
            }
            (target, _) => self.target_package(git, target).await,
        }
    }

    /// When a remembered commit's package could not be fetched (its ref was deleted,
    /// or moved and the commit pruned): the package of what the remote lists now, or
    /// `error` if that is the same commit.
    async fn relisted_package(
        &self,
        git: &GitSource,
        remembered: &str,
        error: ModuleError,
    ) -> Result<(StoredPackage, String), ModuleError> {
        match self.listed_target(git, &repository_key(&git.url)).await? {
            RefTarget::Commit { commit, .. } if commit == remembered => Err(error),
            target => self.target_package(git, target).await,
        }
    }

    async fn target_package(
        &self,
        git: &GitSource,
        target: RefTarget,
    ) -> Result<(StoredPackage, String), ModuleError> {
        match target {
            RefTarget::Commit { commit, fetch } => {
                let stored = self
                    .commit_package(&git.url, &commit, fetch.as_deref())
                    .await?;
                Ok((stored, commit))
            }
            // Only a full fetch can expand it; memoised under the abbreviation for this
            // run, kept under the full id.
            RefTarget::Abbreviated(short) => {
                if self.inner.options.offline {
                    return Err(ModuleError::Offline {
                        what: format!("commit {short} of {}", redacted(&git.url)),
                    });
                }
                let key = (repository_key(&git.url), short.clone());
                self.inner
                    .abbreviated
                    .get(&key, || async {
                        let (package, objects, commit) =
                            self.download_git(&git.url, None, Some(&short)).await?;
                        let stored = self
                            .inner
                            .commits
                            .get(&commit, || async {
                                self.inner.fetched.fetch_add(1, Ordering::Relaxed);
                                let key = PackageKey::Git {
                                    commit: commit.clone(),
                                };
                                self.keep(&key, &package, "", Some(&objects))
                            })
                            .await?;
                        Ok((stored, commit))
                    })
                    .await
            }
        }
    }

    /// One commit's package: from this run's memo, the cache, or one fetch (through
    /// the ref name `fetch` when there is one, else by id).
    async fn commit_package(
        &self,
        url: &str,
        commit: &str,
        fetch: Option<&str>,
    ) -> Result<StoredPackage, ModuleError> {
        let commit = commit.to_ascii_lowercase();
        self.inner
            .commits
            .get(&commit, || async {
                let key = PackageKey::Git {
                    commit: commit.clone(),
                };
                if let Some(stored) = self.inner.cache.package(&key) {
                    self.inner.from_cache.fetch_add(1, Ordering::Relaxed);
                    return Ok(stored);
                }
                if self.inner.options.offline {
                    return Err(ModuleError::Offline {
                        what: format!("{} at commit {commit}", redacted(url)),
                    });
                }
                let want = fetch.unwrap_or(&commit);
                let (mut package, mut objects, fetched) =
                    self.download_git(url, Some(want), None).await?;
                if fetched != commit {
                    // The ref moved since it was listed (in this run, or within the
                    // versions TTL): fetch the commit asked for by its id, so that this
                    // memo entry holds what it is named for.
                    (package, objects, _) = self.download_git(url, Some(&commit), None).await?;
                }
                self.inner.fetched.fetch_add(1, Ordering::Relaxed);
                self.keep(&key, &package, "", Some(&objects))
            })
            .await
    }

    /// What `?ref=` names, and whether it can have moved since: a full commit id as is;
    /// otherwise the commit the remote listed for it within the versions TTL (kept in
    /// the cache), else `ls-remote`; under `--offline` the commit it last resolved to.
    /// Once per (repository, ref) per run, so that every call of a run sees one answer
    /// even when the TTL runs out meanwhile.
    async fn git_target(&self, git: &GitSource) -> Result<(RefTarget, Answer), ModuleError> {
        let reference = git.reference.as_deref();
        if let Some(commit) = reference.filter(|r| is_full_commit(r)) {
            let target = RefTarget::Commit {
                commit: commit.to_ascii_lowercase(),
                fetch: None,
            };
            return Ok((target, Answer::Current));
        }
        let repository = repository_key(&git.url);
        let key = (repository.clone(), git.reference.clone());
        self.inner
            .targets
            .get(&key, || async {
                let cache = &self.inner.cache;
                if self.inner.options.offline {
                    return match cache.git_ref(&repository, reference) {
                        Some(commit) => {
                            let target = RefTarget::Commit {
                                commit,
                                fetch: None,
                            };
                            Ok((target, Answer::Remembered))
                        }
                        None => Err(ModuleError::Offline {
                            what: format!(
                                "the commit of {} at ref {}",
                                redacted(&git.url),
                                reference.unwrap_or("HEAD")
                            ),
                        }),
                    };
                }
                let ttl = self.inner.options.versions_ttl;
                if let Some(commit) = cache.git_ref_fresh(&repository, reference, ttl) {
                    // Fetched through the ref as written when its package is not cached;
                    // `commit_package` checks the fetch gave this commit, and fetches
                    // the commit by id when the ref has moved since.
                    let target = RefTarget::Commit {
                        commit,
                        fetch: Some(reference.unwrap_or("HEAD").to_string()),
                    };
                    return Ok((target, Answer::Remembered));
                }
                let target = self.listed_target(git, &repository).await?;
                Ok((target, Answer::Current))
            })
            .await
    }

    /// What the remote lists `?ref=` at (one `ls-remote` per repository per run),
    /// recorded in the cache with the time.
    async fn listed_target(
        &self,
        git: &GitSource,
        repository: &str,
    ) -> Result<RefTarget, ModuleError> {
        let reference = git.reference.as_deref();
        let refs = self.remote_refs(&git.url, repository).await?;
        let target = resolve_ref(&refs, reference).map_err(|e| git_error(&git.url, e))?;
        if let RefTarget::Commit { commit, .. } = &target {
            self.inner.cache.put_git_ref(repository, reference, commit);
        }
        Ok(target)
    }

    /// The tag names a git repository advertises (one `git ls-remote` per repository per
    /// run).
    pub async fn git_tags(&self, url: &str) -> Result<Vec<String>, ModuleError> {
        if self.inner.options.offline {
            return Err(ModuleError::Offline {
                what: format!("the tags of {}", redacted(url)),
            });
        }
        let refs = self.remote_refs(url, &repository_key(url)).await?;
        Ok(refs
            .keys()
            .filter_map(|name| name.strip_prefix("refs/tags/"))
            .filter(|name| !name.ends_with("^{}"))
            .map(str::to_string)
            .collect())
    }

    async fn remote_refs(
        &self,
        url: &str,
        repository: &str,
    ) -> Result<Arc<RemoteRefs>, ModuleError> {
        self.inner
            .refs
            .get(&repository.to_string(), || async {
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
    /// the abbreviated id) and reads its tree and what proves it. A server that refuses
    /// a commit id it does not advertise gets a second, full fetch.
    async fn download_git(
        &self,
        url: &str,
        want: Option<&str>,
        expand: Option<&str>,
    ) -> Result<(Materialized, CommitObjects, String), ModuleError> {
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
        let limits = &self.inner.options.limits;
        let _unpacking = self.unpack_permit().await?;
        let (tree, objects) = git
            .read_tree(&repo, &commit, limits)
            .await
            .map_err(|e| git_error(url, e))?;
        let package = tree.materialize().map_err(|e| ModuleError::Package {
            url: format!("{} at {commit}", redacted(url)),
            error: e.into(),
        })?;
        drop(work);
        Ok((package, objects, commit))
    }
}

pub(super) fn git_error(url: &str, error: GitError) -> ModuleError {
    ModuleError::Git {
        source_str: format!("git::{}", redacted(url)),
        error: error.scrubbed(|text| scrub_credentials(text, url)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repository_keys() {
        for (a, b, same) in [
            ("https://github.com/o/r.git", "https://GitHub.com/o/r", true),
            (
                "https://github.com/o/r.git/",
                "https://github.com/o/r",
                true,
            ),
            (
                "ssh://git@github.com:22/o/r.git",
                "ssh://git@github.com/o/r",
                true,
            ),
            (
                "https://git.example/o/r.git",
                "https://git.example/o/r",
                false,
            ),
            (
                "https://git.example:443/o/r.git/",
                "https://Git.Example/o/r.git",
                true,
            ),
            (
                "https://git.example/o/r.git",
                "https://git.example/o/other.git",
                false,
            ),
        ] {
            assert_eq!(repository_key(a) == repository_key(b), same, "{a} vs {b}");
        }
    }
}
