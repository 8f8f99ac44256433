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
//! Every command runs with `GIT_TERMINAL_PROMPT=0` (a missing credential fails instead
//! of waiting for a password), no standard input, and a timeout.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::process::Command;

use super::package::{is_kept, PackageTree};
use super::ArchiveLimits;
use crate::net::retry::{retrying, RetryPolicy, Retryable};

/// How to run git; plain values filled by the caller.
#[derive(Debug, Clone)]
pub struct GitOptions {
    /// The `git` program (`"git"`: found on `PATH`).
    pub program: PathBuf,
    /// The longest one git command may run.
    pub timeout: Duration,
    /// Extra environment for every git command (tests point `GIT_CONFIG_GLOBAL` at an
    /// empty file); the process environment is inherited otherwise.
    pub env: Vec<(OsString, OsString)>,
    /// How `ls-remote` and `fetch` are retried after a failure that looks transient
    /// (the registry's policy when the fetcher has a client).
    pub retry: RetryPolicy,
}

impl Default for GitOptions {
    fn default() -> GitOptions {
        GitOptions {
            program: PathBuf::from("git"),
            timeout: Duration::from_secs(300),
            env: Vec::new(),
            retry: RetryPolicy::default(),
        }
    }
}

/// Why a git step failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum GitError {
    #[error("the git command {0:?} was not found; install git (module sources with git:: or github.com need it) or put it on PATH")]
    Missing(PathBuf),
    #[error("{what}: git exited with {status}: {stderr}")]
    Failed {
        what: String,
        status: String,
        stderr: String,
    },
    #[error("{what}: git did not finish within {after:?}")]
    TimedOut { what: String, after: Duration },
    #[error("{what}: {reason}")]
    Other { what: String, reason: String },
    #[error("the repository has no ref {reference:?} (branches and tags it has: {available})")]
    UnknownRef {
        reference: String,
        available: String,
    },
}

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

/// The raw objects behind a fetched commit, for checking a cached copy later.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CommitObjects {
    pub commit: Vec<u8>,
    pub listing: Vec<u8>,
    pub links: BTreeMap<String, String>,
}

/// Runs git commands.
#[derive(Debug, Clone)]
pub(crate) struct Git {
    options: GitOptions,
}

impl Git {
    pub(crate) fn new(options: GitOptions) -> Git {
        Git { options }
    }

    fn command(&self, cwd: Option<&Path>) -> Command {
        let mut command = Command::new(&self.options.program);
        command
            .env("GIT_TERMINAL_PROMPT", "0")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        for (key, value) in &self.options.env {
            command.env(key, value);
        }
        if let Some(cwd) = cwd {
            command.arg("-C").arg(cwd);
        }
        command
    }

    /// Runs to completion and returns standard output.
    async fn run(&self, mut command: Command, what: &str) -> Result<Vec<u8>, GitError> {
        let spawned = command.spawn().map_err(|e| self.spawn_error(e, what))?;
        let after = self.options.timeout;
        let output = tokio::time::timeout(after, spawned.wait_with_output())
            .await
            .map_err(|_| GitError::TimedOut {
                what: what.to_string(),
                after,
            })?
            .map_err(|e| GitError::Other {
                what: what.to_string(),
                reason: e.to_string(),
            })?;
        if !output.status.success() {
            return Err(GitError::Failed {
                what: what.to_string(),
                status: output.status.to_string(),
                stderr: last_lines(&output.stderr),
            });
        }
        Ok(output.stdout)
    }

    /// [`run`](Self::run) for commands that talk to the remote: a failure whose message
    /// looks transient (see [`is_transient`]) is retried with backoff.
    async fn run_remote(
        &self,
        build: impl Fn() -> Command,
        what: &str,
    ) -> Result<Vec<u8>, GitError> {
        retrying(&self.options.retry, || self.run(build(), what))
            .await
            .map_err(|gave_up| gave_up.error)
    }

    fn spawn_error(&self, e: std::io::Error, what: &str) -> GitError {
        if e.kind() == std::io::ErrorKind::NotFound {
            GitError::Missing(self.options.program.clone())
        } else {
            GitError::Other {
                what: what.to_string(),
                reason: format!("cannot run {}: {e}", self.options.program.display()),
            }
        }
    }

    /// `git ls-remote <url>`: every ref the remote advertises.
    pub(crate) async fn ls_remote(&self, url: &str) -> Result<RemoteRefs, GitError> {
        let what = format!("listing the refs of {}", super::source::redacted(url));
        let build = || {
            let mut command = self.command(None);
            command.arg("ls-remote").arg("--").arg(url);
            command
        };
        let stdout = self.run_remote(build, &what).await?;
        let text = String::from_utf8_lossy(&stdout);
        let mut refs = RemoteRefs::new();
        for line in text.lines() {
            if let Some((commit, name)) = line.split_once('\t') {
                refs.insert(name.trim().to_string(), commit.trim().to_string());
            }
        }
        Ok(refs)
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
        let shown = super::source::redacted(url);
        let mut init = self.command(None);
        init.args(["init", "-q", "--bare"]).arg(scratch);
        self.run(init, &format!("preparing a repository for {shown}"))
            .await?;

        let what = match want {
            Some(want) => format!("fetching {want} from {shown}"),
            None => format!("fetching {shown}"),
        };
        let build = || {
            let mut fetch = self.command(Some(scratch));
            fetch.args(["fetch", "-q", "--no-tags"]);
            match want {
                Some(want) => {
                    fetch.arg("--depth=1").arg("--").arg(url).arg(want);
                }
                None => {
                    fetch
                        .arg("--")
                        .arg(url)
                        .arg("+refs/heads/*:refs/heads/*")
                        .arg("+refs/tags/*:refs/tags/*");
                }
            }
            fetch
        };
        self.run_remote(build, &what).await?;

        let rev = match (want, expand) {
            (Some(_), _) => "FETCH_HEAD^{commit}".to_string(),
            (None, Some(short)) => format!("{short}^{{commit}}"),
            (None, None) => "HEAD^{commit}".to_string(),
        };
        let mut parse = self.command(Some(scratch));
        parse.args(["rev-parse", "--verify", "--quiet"]).arg(&rev);
        let out = self
            .run(parse, &format!("finding commit {rev} of {shown}"))
            .await
            .map_err(|e| match (e, expand) {
                (GitError::Failed { .. }, Some(short)) => GitError::UnknownRef {
                    reference: short.to_string(),
                    available: "no commit with that abbreviated id".to_string(),
                },
                (e, _) => e,
            })?;
        Ok(String::from_utf8_lossy(&out).trim().to_ascii_lowercase())
    }

    /// Reads the tree of `commit` in `scratch`: directories, configuration files and
    /// symlinks (whose targets are blobs too).
    pub(crate) async fn read_tree(
        &self,
        scratch: &Path,
        commit: &str,
        limits: &ArchiveLimits,
    ) -> Result<PackageTree, GitError> {
        let what = format!("reading commit {commit}");
        let mut ls = self.command(Some(scratch));
        ls.args(["ls-tree", "-r", "-t", "-z", "--full-tree"])
            .arg(commit);
        let listing = self.run(ls, &what).await?;
        let mut tree = PackageTree::new(limits.max_entries, limits.max_config_bytes);
        let mut wanted: Vec<(String, String, bool)> = Vec::new();
        let bad = |reason: String| GitError::Other {
            what: what.clone(),
            reason,
        };
        for record in listing.split(|b| *b == 0).filter(|r| !r.is_empty()) {
            let record = std::str::from_utf8(record)
                .map_err(|_| bad("a path in the repository is not UTF-8".to_string()))?;
            let (meta, path) = record
                .split_once('\t')
                .ok_or_else(|| bad(format!("unexpected ls-tree line {record:?}")))?;
            let mut fields = meta.split(' ');
            let (Some(mode), Some(_kind), Some(oid)) =
                (fields.next(), fields.next(), fields.next())
            else {
                return Err(bad(format!("unexpected ls-tree line {record:?}")));
            };
            let package = |e: super::package::PackageError| bad(e.to_string());
            match mode {
                "040000" => tree.add_dir(path).map_err(package)?,
                // A submodule: an empty directory, as submodules are not fetched.
                "160000" => tree.add_dir(path).map_err(package)?,
                "120000" => wanted.push((path.to_string(), oid.to_string(), true)),
                _ if is_kept(path) => wanted.push((path.to_string(), oid.to_string(), false)),
                _ => tree.add_file(path, None).map_err(package)?,
            }
        }
        let blobs = self
            .cat_blobs(
                scratch,
                wanted.iter().map(|(_, oid, _)| oid.as_str()),
                limits,
                &what,
            )
            .await?;
        for ((path, _, is_link), content) in wanted.into_iter().zip(blobs) {
            let result = if is_link {
                let target = String::from_utf8(content)
                    .map_err(|_| bad(format!("symlink {path:?} has a target that is not UTF-8")))?;
                tree.add_symlink(&path, &target)
            } else {
                tree.add_file(&path, Some(content))
            };
            result.map_err(|e| bad(e.to_string()))?;
        }
        Ok(tree)
    }

    /// What proves `commit`'s content for the module cache
    /// ([`super::git_objects::verify_listing`]): the raw commit object, the full
    /// `ls-tree` listing from which every tree object can be rebuilt, and the target of
    /// every symlink (path → target).
    pub(crate) async fn commit_objects(
        &self,
        scratch: &Path,
        commit: &str,
        limits: &ArchiveLimits,
    ) -> Result<CommitObjects, GitError> {
        let what = format!("reading commit {commit}");
        let mut cat = self.command(Some(scratch));
        cat.args(["cat-file", "commit"]).arg(commit);
        let object = self.run(cat, &what).await?;
        let mut ls = self.command(Some(scratch));
        ls.args(["ls-tree", "-r", "-t", "-z", "--full-tree"])
            .arg(commit);
        let listing = self.run(ls, &what).await?;
        let entries =
            super::git_objects::parse_listing(&listing).map_err(|reason| GitError::Other {
                what: what.clone(),
                reason,
            })?;
        let links: Vec<_> = entries.iter().filter(|e| e.mode == "120000").collect();
        let targets = self
            .cat_blobs(scratch, links.iter().map(|e| e.id.as_str()), limits, &what)
            .await?;
        Ok(CommitObjects {
            commit: object,
            listing,
            links: links
                .iter()
                .zip(targets)
                .map(|(e, t)| (e.path.clone(), String::from_utf8_lossy(&t).into_owned()))
                .collect(),
        })
    }

    /// `git cat-file --batch` for `oids`, in order. The kept-bytes cap bounds what is
    /// read; the requests are written from a separate task so neither pipe can fill up
    /// while the other waits.
    async fn cat_blobs<'a>(
        &self,
        scratch: &Path,
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
        let mut command = self.command(Some(scratch));
        command.args(["cat-file", "--batch"]).stdin(Stdio::piped());
        let mut child = command.spawn().map_err(|e| self.spawn_error(e, what))?;
        let bad = |reason: String| GitError::Other {
            what: what.to_string(),
            reason,
        };
        let mut stdin = child.stdin.take().ok_or_else(|| bad("no stdin".into()))?;
        let writer = tokio::spawn(async move {
            let _ = stdin.write_all(&requests).await;
        });
        let mut stdout = child.stdout.take().ok_or_else(|| bad("no stdout".into()))?;
        let read = async {
            let mut out = Vec::with_capacity(count);
            let mut total = 0u64;
            let mut reader = tokio::io::BufReader::new(&mut stdout);
            for _ in 0..count {
                let mut header = Vec::new();
                loop {
                    let byte = reader.read_u8().await.map_err(|e| bad(e.to_string()))?;
                    if byte == b'\n' {
                        break;
                    }
                    header.push(byte);
                    if header.len() > 200 {
                        return Err(bad("unexpected cat-file output".into()));
                    }
                }
                let header = String::from_utf8_lossy(&header).into_owned();
                let size: u64 = match header.split(' ').collect::<Vec<_>>()[..] {
                    [_, "blob", size] => size
                        .parse()
                        .map_err(|_| bad(format!("bad header {header:?}")))?,
                    _ => return Err(bad(format!("cannot read object: {header}"))),
                };
                total = total.saturating_add(size);
                if total > limits.max_config_bytes {
                    return Err(bad(format!(
                        "configuration files larger than {} bytes in total",
                        limits.max_config_bytes
                    )));
                }
                let mut content = vec![0; size as usize];
                reader
                    .read_exact(&mut content)
                    .await
                    .map_err(|e| bad(e.to_string()))?;
                let mut newline = [0u8; 1];
                reader
                    .read_exact(&mut newline)
                    .await
                    .map_err(|e| bad(e.to_string()))?;
                out.push(content);
            }
            Ok(out)
        };
        let result = tokio::time::timeout(self.options.timeout, read)
            .await
            .map_err(|_| GitError::TimedOut {
                what: what.to_string(),
                after: self.options.timeout,
            })?;
        let _ = writer.await;
        let _ = child.kill().await;
        result
    }
}

/// Whether a failed git command is worth repeating: a timeout, or what git and curl say
/// when a connection breaks or a server has a bad moment. A missing repository, a
/// refused credential or an unknown host is not.
fn is_transient(error: &GitError) -> bool {
    const SIGNS: [&str; 9] = [
        "RPC failed",
        "early EOF",
        "Connection reset",
        "Connection timed out",
        "Operation timed out",
        "remote end hung up unexpectedly",
        "The requested URL returned error: 502",
        "The requested URL returned error: 503",
        "The requested URL returned error: 504",
    ];
    match error {
        GitError::TimedOut { .. } => true,
        GitError::Failed { stderr, .. } => SIGNS.iter().any(|s| stderr.contains(s)),
        _ => false,
    }
}

impl Retryable for GitError {
    fn is_transient(&self) -> bool {
        is_transient(self)
    }
}

/// The end of git's error output: the lines that say what went wrong.
fn last_lines(stderr: &[u8]) -> String {
    let text = String::from_utf8_lossy(stderr);
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let start = lines.len().saturating_sub(4);
    lines[start..].join(" / ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transient_failures() {
        let failed = |stderr: &str| GitError::Failed {
            what: "w".into(),
            status: "exit status: 128".into(),
            stderr: stderr.into(),
        };
        assert!(is_transient(&failed(
            "error: RPC failed; curl 18 transfer closed"
        )));
        assert!(is_transient(&failed(
            "fatal: unable to access 'x': The requested URL returned error: 503"
        )));
        assert!(!is_transient(&failed("fatal: repository 'x' not found")));
        assert!(!is_transient(&failed(
            "fatal: unable to access 'x': Could not resolve host: x"
        )));
        assert!(!is_transient(&GitError::Missing("git".into())));
    }

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
