//! Git as a transport: the `git` command, run the one safe way ([`command`]), its
//! options, and what a failed git command says ([`GitError`]). What tfsum asks git for
//! (refs, a shallow fetch, the configuration files of a commit) is the module source's:
//! `tfsum_sources::modules::git`.

pub(crate) mod command;

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use crate::retry::{RetryPolicy, Retryable};

pub use command::{Deadline, GitCommand, Repo, Running};

/// How to run git; plain values filled by the caller.
#[derive(Debug, Clone)]
pub struct GitOptions {
    /// The `git` program (`"git"`: found on `PATH`).
    pub program: PathBuf,
    /// The longest one git command may run.
    pub timeout: Duration,
    /// The longest one step may take, retries and backoff included: listing a
    /// repository's refs, fetching a commit, or reading its tree.
    pub step_timeout: Duration,
    /// Extra environment for every git command (tests point `GIT_CONFIG_GLOBAL` at an
    /// empty file); the process environment is inherited otherwise, but for the
    /// variables that would point git at another repository.
    pub env: Vec<(OsString, OsString)>,
    /// How `ls-remote` and `fetch` are retried after a failure that looks transient
    /// (the registry's policy when the fetcher has a client).
    pub retry: RetryPolicy,
    /// Refs one `ls-remote` may list.
    pub max_refs: usize,
    /// Bytes of output one listing (`ls-remote`, `ls-tree`) may have.
    pub max_output_bytes: u64,
}

impl Default for GitOptions {
    fn default() -> GitOptions {
        GitOptions {
            program: PathBuf::from("git"),
            timeout: Duration::from_secs(300),
            step_timeout: Duration::from_secs(600),
            env: Vec::new(),
            retry: RetryPolicy::default(),
            max_refs: 200_000,
            max_output_bytes: 64 << 20,
        }
    }
}

/// Why a git step failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GitError {
    #[error("the git command {0:?} was not found; install git (module sources with git:: or github.com need it) or put it on PATH")]
    Missing(PathBuf),
    #[error("{what}: git exited with {status}: {stderr}")]
    Failed {
        what: String,
        status: String,
        stderr: String,
    },
    #[error("{what}: git did not finish within {after:?}; it was stopped and is not retried")]
    TimedOut { what: String, after: Duration },
    #[error("{what}: no success within {after:?}, retries included; the last attempt: {last}")]
    GaveUp {
        what: String,
        after: Duration,
        last: String,
    },
    #[error("{what}: {limit}; tfsum stopped git there")]
    Capped { what: String, limit: String },
    #[error("{what}: git's output ended early")]
    Truncated { what: String },
    #[error("{what}: {reason}")]
    Other { what: String, reason: String },
    #[error("the repository has no ref {reference:?} (branches and tags it has: {available})")]
    UnknownRef {
        reference: String,
        available: String,
    },
}

impl GitError {
    /// The same error with `scrub` applied to every text it holds: for taking the
    /// credentials of a source's URL out of what git printed.
    pub fn scrubbed(self, scrub: impl Fn(&str) -> String) -> GitError {
        match self {
            GitError::Missing(program) => GitError::Missing(program),
            GitError::Failed {
                what,
                status,
                stderr,
            } => GitError::Failed {
                what: scrub(&what),
                status,
                stderr: scrub(&stderr),
            },
            GitError::TimedOut { what, after } => GitError::TimedOut {
                what: scrub(&what),
                after,
            },
            GitError::GaveUp { what, after, last } => GitError::GaveUp {
                what: scrub(&what),
                after,
                last: scrub(&last),
            },
            GitError::Capped { what, limit } => GitError::Capped {
                what: scrub(&what),
                limit,
            },
            GitError::Truncated { what } => GitError::Truncated { what: scrub(&what) },
            GitError::Other { what, reason } => GitError::Other {
                what: scrub(&what),
                reason: scrub(&reason),
            },
            GitError::UnknownRef {
                reference,
                available,
            } => GitError::UnknownRef {
                reference: scrub(&reference),
                available: scrub(&available),
            },
        }
    }
}

/// Whether a failed git command is worth repeating: what git and curl say when a
/// connection breaks or a server has a bad moment. A missing repository, a refused
/// credential or an unknown host is not; nor is a timeout (tfsum's deadline, or git's
/// or curl's own), which would only spend the same minutes again, nor a cap.
pub(crate) fn is_transient(error: &GitError) -> bool {
    const TIMEOUTS: [&str; 3] = ["timed out", "Operation too slow", "curl 28 "];
    const SIGNS: [&str; 7] = [
        "RPC failed",
        "early EOF",
        "Connection reset",
        "remote end hung up unexpectedly",
        "The requested URL returned error: 502",
        "The requested URL returned error: 503",
        "The requested URL returned error: 504",
    ];
    match error {
        GitError::Failed { stderr, .. } => {
            !TIMEOUTS.iter().any(|s| stderr.contains(s)) && SIGNS.iter().any(|s| stderr.contains(s))
        }
        _ => false,
    }
}

impl Retryable for GitError {
    fn is_transient(&self) -> bool {
        is_transient(self)
    }
}

/// The end of git's error output: the lines that say what went wrong.
pub(crate) fn last_lines(stderr: &[u8]) -> String {
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
        // Timeouts, tfsum's or curl's, are not retried: they would cost the same again.
        assert!(!is_transient(&GitError::TimedOut {
            what: "w".into(),
            after: Duration::from_secs(1),
        }));
        assert!(!is_transient(&failed(
            "error: RPC failed; curl 28 Operation timed out after 300000 milliseconds"
        )));
        assert!(!is_transient(&failed(
            "fatal: unable to access 'x': Failed to connect to h port 443: Connection timed out"
        )));
        assert!(!is_transient(&GitError::Capped {
            what: "w".into(),
            limit: "more than 1 refs".into(),
        }));
    }
}
