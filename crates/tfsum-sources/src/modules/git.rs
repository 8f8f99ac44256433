//! Git through the `git` command, as Terraform's go-getter does, so the user's SSH keys,
//! credential helpers and `url.<base>.insteadOf` rules apply unchanged.
//!
//! tfsum never checks a repository out. Per package it runs
//!
//! 1. `git ls-remote <url>` (once per URL per run) to turn `?ref=` into a commit, unless
//!    the ref already is a full commit id;
//! 2. `git init --bare` in a scratch directory and `git fetch --depth=1 <url> <ref>`;
//! 3. `git ls-tree -r -t -z <commit>` and `git cat-file --batch` for the configuration
//!    files and symlinks only, into a checked [`PackageTree`].
//!
//! Every command is built by the runner of [`tfsum_net::git`] ([`GitCommand`]): it runs
//! in a repository tfsum made, never one it found in a checkout, may use only the
//! transports a source may name, and is stopped at a deadline; its output is read as a stream under caps (bytes,
//! refs, tree entries), so a hostile repository or server costs bounded time and memory.
//! A step (listing refs, fetching a commit, reading its tree) has a deadline of its own,
//! retries included; a timeout or a cap is never retried.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use tempfile::TempDir;
use tokio::sync::OnceCell;

use super::package::{is_kept, PackageTree};
use super::ArchiveLimits;
use tfsum_net::git::{Deadline, GitCommand, GitError, GitOptions, Repo, Running};
use tfsum_net::retry::retrying;
use tfsum_vocab::module_source::redacted;

/// The longest line of `ls-remote` or record of `ls-tree` tfsum reads (a ref name or a
/// path, with its object id and mode).
const MAX_RECORD: usize = 16 << 10;

/// A full commit id: 40 (SHA-1) or 64 (SHA-256) lowercase or uppercase hex digits.
pub(crate) fn is_full_commit(reference: &str) -> bool {
    matches!(reference.len(), 40 | 64) && reference.chars().all(|c| c.is_ascii_hexdigit())
}

fn is_abbreviated_commit(reference: &str) -> bool {
    (4..40).contains(&reference.len()) && reference.chars().all(|c| c.is_ascii_hexdigit())
}

/// The refs a remote advertises: full ref name → commit (peeled tags as `name^{}`).
pub(crate) type RemoteRefs = BTreeMap<String, String>;

/// What `?ref=` means for a repository.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum RefTarget {
    /// A commit, fetched through the ref name given (`None`: fetch the id itself).
    Commit {
        commit: String,
        fetch: Option<String>,
    },
    /// An abbreviated commit id: the whole history must be fetched to expand it.
    Abbreviated(String),
}

/// Resolves `reference` (a tag, a branch, a full ref name, or `None` for `HEAD`)
/// against `ls-remote` output, preferring a tag over a branch of the same name, as
/// git's own lookup order does.
pub(crate) fn resolve_ref(
    refs: &RemoteRefs,
    reference: Option<&str>,
) -> Result<RefTarget, GitError> {
    let wanted = reference.unwrap_or("HEAD");
    let candidates = [
        format!("refs/tags/{wanted}"),
        format!("refs/heads/{wanted}"),
        wanted.to_string(),
    ];
    for name in &candidates {
        let peeled = refs.get(&format!("{name}^{{}}"));
        if let Some(commit) = peeled.or_else(|| refs.get(name)) {
            let fetch = if name == "HEAD" {
                "HEAD".to_string()
            } else {
                name.clone()
            };
            return Ok(RefTarget::Commit {
                commit: commit.to_ascii_lowercase(),
                fetch: Some(fetch),
            });
        }
    }
    if is_abbreviated_commit(wanted) {
        return Ok(RefTarget::Abbreviated(wanted.to_ascii_lowercase()));
    }
    let mut names: Vec<&str> = refs
        .keys()
        .filter(|k| !k.ends_with("^{}"))
        .filter_map(|k| {
            k.strip_prefix("refs/heads/")
                .or_else(|| k.strip_prefix("refs/tags/"))
        })
        .collect();
    names.truncate(20);
    Err(GitError::UnknownRef {
        reference: wanted.to_string(),
        available: if names.is_empty() {
            "none".to_string()
        } else {
            names.join(", ")
        },
    })
}

/// Runs git commands.
#[derive(Debug, Clone)]
pub(crate) struct Git {
    options: GitOptions,
    /// tfsum's own empty repository, where `ls-remote` runs; made on first use.
    home: Arc<OnceCell<Home>>,
    /// The scratch repositories [`fetch`](Self::fetch) made, by directory: the only ones
    /// [`read_tree`](Self::read_tree) reads.
    made: Arc<Mutex<HashMap<PathBuf, Repo>>>,
}

#[derive(Debug)]
struct Home {
    repo: Repo,
    _dir: TempDir,
}

impl Git {
    pub(crate) fn new(options: GitOptions) -> Git {
        Git {
            options,
            home: Arc::new(OnceCell::new()),
            made: Arc::new(Mutex::new(HashMap::new())),
        }
    }

    fn step(&self) -> Deadline {
        Deadline::after(self.options.step_timeout)
    }

    /// When a command started now must be done: its own timeout or the end of `step`.
    fn deadline(&self, step: Deadline) -> Deadline {
        Deadline::after(self.options.timeout).min(step)
    }

    fn command(&self, repo: &Repo, step: Deadline, what: &str) -> GitCommand {
        GitCommand::new(&self.options, repo, self.deadline(step), what)
    }

    async fn home(&self, step: Deadline, what: &str) -> Result<&Repo, GitError> {
        let home = self
            .home
            .get_or_try_init(|| async {
                let dir = tempfile::Builder::new()
                    .prefix("tfsum-git-")
                    .tempdir()
                    .map_err(|e| GitError::Other {
                        what: what.to_string(),
                        reason: format!("cannot create a temporary directory: {e}"),
                    })?;
                let home = dir.path().join("home");
                let repo = Repo::init(&self.options, &home, self.deadline(step), what).await?;
                Ok::<Home, GitError>(Home { repo, _dir: dir })
            })
            .await?;
        Ok(&home.repo)
    }

    /// Runs `attempt` with the retry policy while `step` has time left: a transient
    /// failure is tried again, a timeout or a cap is not.
    async fn retried<T, F, Fut>(
        &self,
        step: Deadline,
        what: &str,
        attempt: F,
    ) -> Result<T, GitError>
    where
        F: Fn() -> Fut,
        Fut: std::future::Future<Output = Result<T, GitError>>,
    {
        let last = Mutex::new(None::<GitError>);
        retrying(&self.options.retry, || async {
            if step.passed() {
                let last = last.lock().unwrap_or_else(|p| p.into_inner()).take();
                return Err(GitError::GaveUp {
                    what: what.to_string(),
                    after: step.span(),
                    last: last.map_or_else(String::new, |e| {
                        let text = e.to_string();
                        let prefix = format!("{what}: ");
                        text.strip_prefix(&prefix).unwrap_or(&text).to_string()
                    }),
                });
            }
            let result = attempt().await;
            if let Err(e) = &result {
                *last.lock().unwrap_or_else(|p| p.into_inner()) = Some(e.clone());
            }
            result
        })
        .await
        .map_err(|gave_up| gave_up.error)
    }

    /// `git ls-remote <url>`: every ref the remote advertises, at most
    /// [`GitOptions::max_refs`] of them.
    pub(crate) async fn ls_remote(&self, url: &str) -> Result<RemoteRefs, GitError> {
        let what = format!("listing the refs of {}", redacted(url));
        let step = self.step();
        let home = self.home(step, &what).await?;
        self.retried(step, &what, || async {
            let mut command = self.command(home, step, &what);
            command.args(["ls-remote", "--", url]);
            let mut running = command.spawn(self.options.max_output_bytes)?;
            let read = read_refs(&mut running, self.options.max_refs, &what).await;
            running.end(read).await
        })
        .await
    }

    /// Fetches one commit of `url` into a new bare repository at `scratch` and returns
    /// its full id. `want` is a ref name or a full commit id; `None` fetches all refs
    /// with full history (for an abbreviated id, which `expand` names).
    pub(crate) async fn fetch(
        &self,
        url: &str,
        scratch: &Path,
        want: Option<&str>,
        expand: Option<&str>,
    ) -> Result<String, GitError> {
        let shown = redacted(url);
        let step = self.step();
        let preparing = format!("preparing a repository for {shown}");
        let repo = Repo::init(&self.options, scratch, self.deadline(step), &preparing).await?;
        self.made
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(scratch.to_path_buf(), repo.clone());

        let what = match want {
            Some(want) => format!("fetching {want} from {shown}"),
            None => format!("fetching {shown}"),
        };
        self.retried(step, &what, || async {
            let mut fetch = self.command(&repo, step, &what);
            fetch.args(["fetch", "-q", "--no-tags"]);
            match want {
                Some(want) => {
                    fetch.args(["--depth=1", "--", url, want]);
                }
                None => {
                    fetch.args([
                        "--",
                        url,
                        "+refs/heads/*:refs/heads/*",
                        "+refs/tags/*:refs/tags/*",
                    ]);
                }
            }
            fetch.output(1 << 20).await
        })
        .await?;

        let rev = match (want, expand) {
            (Some(_), _) => "FETCH_HEAD^{commit}".to_string(),
            (None, Some(short)) => format!("{short}^{{commit}}"),
            (None, None) => "HEAD^{commit}".to_string(),
        };
        let mut parse = self.command(&repo, step, &format!("finding commit {rev} of {shown}"));
        parse.args(["rev-parse", "--verify", "--quiet", &rev]);
        let out = parse.output(1 << 16).await.map_err(|e| match (e, expand) {
            (GitError::Failed { .. }, Some(short)) => GitError::UnknownRef {
                reference: short.to_string(),
                available: "no commit with that abbreviated id".to_string(),
            },
            (e, _) => e,
        })?;
        Ok(String::from_utf8_lossy(&out).trim().to_ascii_lowercase())
    }

    /// Reads the tree of `commit` in `scratch` (a repository [`fetch`](Self::fetch)
    /// made): directories, configuration files and symlinks (whose targets are blobs
    /// too), and what proves that content for the module cache ([`CommitObjects`]). The
    /// listing is read as it comes, and git is stopped at the entry cap.
    pub(crate) async fn read_tree(
        &self,
        scratch: &Path,
        commit: &str,
        limits: &ArchiveLimits,
    ) -> Result<(PackageTree, CommitObjects), GitError> {
        let what = format!("reading commit {commit}");
        let repo = self
            .made
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(scratch)
            .cloned()
            .ok_or_else(|| GitError::Other {
                what: what.clone(),
                reason: format!("{} is not a repository tfsum made", scratch.display()),
            })?;
        let step = self.step();
        let mut ls = self.command(&repo, step, &what);
        ls.args(["ls-tree", "-r", "-t", "-z", "--full-tree", commit]);
        let mut running = ls.spawn(self.options.max_output_bytes)?;
        let read = read_listing(&mut running, limits, &what).await;
        let (mut tree, wanted, listing) = running.end(read).await?;
        let mut cat = self.command(&repo, step, &what);
        cat.args(["cat-file", "commit", commit]);
        let commit_object = cat.output(MAX_COMMIT_OBJECT).await?;
        let bad = |reason: String| GitError::Other {
            what: what.clone(),
            reason,
        };
        let blobs = self
            .cat_blobs(
                &repo,
                step,
                wanted.iter().map(|w| w.oid.as_str()),
                limits,
                &what,
            )
            .await?;
        let mut links = BTreeMap::new();
        for (entry, content) in wanted.into_iter().zip(blobs) {
            let path = entry.path;
            let result = if entry.is_link {
                let target = String::from_utf8(content)
                    .map_err(|_| bad(format!("symlink {path:?} has a target that is not UTF-8")))?;
                let added = tree.add_symlink(&path, &target);
                links.insert(path, target);
                added
            } else {
                tree.add_file(&path, Some(content))
            };
            result.map_err(|e| bad(e.to_string()))?;
        }
        let proof = CommitObjects {
            commit: commit_object,
            listing,
            links,
        };
        Ok((tree, proof))
    }

    /// `git cat-file --batch` for `oids`, in order. The kept-bytes cap bounds what is
    /// read, checked before each blob is allocated.
    async fn cat_blobs<'a>(
        &self,
        repo: &Repo,
        step: Deadline,
        oids: impl Iterator<Item = &'a str>,
        limits: &ArchiveLimits,
        what: &str,
    ) -> Result<Vec<Vec<u8>>, GitError> {
        let requests: Vec<u8> = oids
            .flat_map(|oid| format!("{oid}\n").into_bytes())
            .collect();
        if requests.is_empty() {
            return Ok(Vec::new());
        }
        let count = requests.iter().filter(|b| **b == b'\n').count();
        let mut command = self.command(repo, step, what);
        command.args(["cat-file", "--batch"]).input(requests);
        // Each answer is a header line, the blob and a newline.
        let most = limits
            .max_config_bytes
            .saturating_add((count as u64).saturating_mul(MAX_HEADER as u64 + 2));
        let mut running = command.spawn(most)?;
        let read = read_blobs(&mut running, count, limits.max_config_bytes, what).await;
        running.end(read).await
    }
}

/// The raw objects behind a fetched commit, for checking a cached copy later
/// ([`super::git_objects::verify_listing`]): the commit object, the full `ls-tree -r -t
/// -z` listing from which every tree object can be rebuilt, and the target of every
/// symlink (path → target).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CommitObjects {
    pub commit: Vec<u8>,
    pub listing: Vec<u8>,
    pub links: BTreeMap<String, String>,
}

/// A commit object is a few hundred bytes; a long message is allowed for.
const MAX_COMMIT_OBJECT: u64 = 1 << 20;

/// The longest `cat-file --batch` header: `<oid> <type> <size>`.
const MAX_HEADER: usize = 200;

/// `ls-remote` lines (`<oid>\t<ref>`), at most `max_refs` of them.
async fn read_refs(
    running: &mut Running,
    max_refs: usize,
    what: &str,
) -> Result<RemoteRefs, GitError> {
    let mut refs = RemoteRefs::new();
    while let Some(line) = running.record(b'\n', MAX_RECORD).await? {
        if refs.len() == max_refs {
            return Err(GitError::Capped {
                what: what.to_string(),
                limit: format!("the remote lists more than {max_refs} refs"),
            });
        }
        let line = String::from_utf8_lossy(&line);
        if let Some((commit, name)) = line.split_once('\t') {
            refs.insert(name.trim().to_string(), commit.trim().to_string());
        }
    }
    Ok(refs)
}

/// A blob `read_tree` needs: a kept file or a symlink's target.
struct Wanted {
    path: String,
    oid: String,
    is_link: bool,
}

/// `ls-tree -r -t -z` records into a tree (directories, files not kept) and the blobs
/// still to read, at most `limits.max_entries` records.
async fn read_listing(
    running: &mut Running,
    limits: &ArchiveLimits,
    what: &str,
) -> Result<(PackageTree, Vec<Wanted>, Vec<u8>), GitError> {
    let mut tree = PackageTree::new(limits.max_entries, limits.max_config_bytes);
    let mut wanted = Vec::new();
    let mut listing = Vec::new();
    let mut records = 0usize;
    let bad = |reason: String| GitError::Other {
        what: what.to_string(),
        reason,
    };
    while let Some(record) = running.record(0, MAX_RECORD).await? {
        records += 1;
        if records > limits.max_entries {
            return Err(GitError::Capped {
                what: what.to_string(),
                limit: format!("more than {} entries", limits.max_entries),
            });
        }
        listing.extend_from_slice(&record);
        listing.push(0);
        let record = String::from_utf8(record)
            .map_err(|_| bad("a path in the repository is not UTF-8".to_string()))?;
        let (meta, path) = record
            .split_once('\t')
            .ok_or_else(|| bad(format!("unexpected ls-tree line {record:?}")))?;
        let mut fields = meta.split(' ');
        let (Some(mode), Some(_kind), Some(oid)) = (fields.next(), fields.next(), fields.next())
        else {
            return Err(bad(format!("unexpected ls-tree line {record:?}")));
        };
        let package = |e: super::package::ContentError| bad(e.to_string());
        let want = |is_link| Wanted {
            path: path.to_string(),
            oid: oid.to_string(),
            is_link,
        };
        match mode {
            "040000" => tree.add_dir(path).map_err(package)?,
            // A submodule: an empty directory, as submodules are not fetched.
            "160000" => tree.add_dir(path).map_err(package)?,
            "120000" => wanted.push(want(true)),
            _ if is_kept(path) => wanted.push(want(false)),
            _ => tree.add_file(path, None).map_err(package)?,
        }
    }
    Ok((tree, wanted, listing))
}

/// `count` answers of `cat-file --batch`, at most `max_total` blob bytes in all.
async fn read_blobs(
    running: &mut Running,
    count: usize,
    max_total: u64,
    what: &str,
) -> Result<Vec<Vec<u8>>, GitError> {
    let bad = |reason: String| GitError::Other {
        what: what.to_string(),
        reason,
    };
    let truncated = || GitError::Truncated {
        what: what.to_string(),
    };
    let mut out = Vec::with_capacity(count);
    let mut total = 0u64;
    for _ in 0..count {
        let header = running
            .record(b'\n', MAX_HEADER)
            .await?
            .ok_or_else(truncated)?;
        let header = String::from_utf8_lossy(&header).into_owned();
        let size: u64 = match header.split(' ').collect::<Vec<_>>()[..] {
            [_, "blob", size] => size
                .parse()
                .map_err(|_| bad(format!("bad header {header:?}")))?,
            _ => return Err(bad(format!("cannot read object: {header}"))),
        };
        total = total.saturating_add(size);
        if total > max_total {
            return Err(GitError::Capped {
                what: what.to_string(),
                limit: format!("configuration files larger than {max_total} bytes in total"),
            });
        }
        let size = usize::try_from(size).map_err(|_| bad(format!("bad header {header:?}")))?;
        let content = running.exact(size).await?;
        running.exact(1).await?;
        out.push(content);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refs_resolve_like_git() {
        let a = "a".repeat(40);
        let b = "b".repeat(40);
        let c = "c".repeat(40);
        let refs: RemoteRefs = [
            ("HEAD", a.as_str()),
            ("refs/heads/main", a.as_str()),
            ("refs/heads/v1", c.as_str()),
            ("refs/tags/v1", b.as_str()),
            ("refs/tags/v1^{}", c.as_str()),
            ("refs/tags/light", b.as_str()),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        let commit = |commit: &str, fetch: &str| {
            Ok(RefTarget::Commit {
                commit: commit.to_string(),
                fetch: Some(fetch.to_string()),
            })
        };
        assert_eq!(resolve_ref(&refs, None), commit(&a, "HEAD"));
        assert_eq!(
            resolve_ref(&refs, Some("main")),
            commit(&a, "refs/heads/main")
        );
        // The annotated tag, peeled, wins over the branch of the same name.
        assert_eq!(resolve_ref(&refs, Some("v1")), commit(&c, "refs/tags/v1"));
        assert_eq!(
            resolve_ref(&refs, Some("light")),
            commit(&b, "refs/tags/light")
        );
        assert_eq!(
            resolve_ref(&refs, Some("refs/heads/main")),
            commit(&a, "refs/heads/main")
        );
        assert_eq!(
            resolve_ref(&refs, Some("abc1234")),
            Ok(RefTarget::Abbreviated("abc1234".into()))
        );
        let err = resolve_ref(&refs, Some("nope")).unwrap_err().to_string();
        assert!(
            err.contains("no ref \"nope\"") && err.contains("main"),
            "{err}"
        );
        assert!(is_full_commit(&a) && !is_full_commit("abc"));
    }
}
