//! The one way tfsum starts git, and how it reads what git prints.
//!
//! Git reads configuration from the repository it finds around its working directory,
//! and a checkout is untrusted: a directory holding committed files named `HEAD`,
//! `config`, `objects/` and `refs/` *is* a git directory to git, and its `config` can set
//! `core.sshCommand` or rewrite `http://` to an `ext::` command. So a command is built
//! only by [`GitCommand::new`], which needs a [`Repo`]: a repository tfsum created itself
//! ([`Repo::init`]) in a fresh directory. Every command
//!
//! - runs in that repository (`GIT_DIR` and the working directory), with
//!   `GIT_CEILING_DIRECTORIES` at its parent and `safe.bareRepository=explicit`, and
//!   without the variables that point git elsewhere (a run inside a git hook inherits
//!   them), so no other repository's configuration is ever read;
//! - may use only the transports a git source may name (`GIT_ALLOW_PROTOCOL`, which
//!   overrides every `protocol.*.allow` setting): never `ext::` or `fd::`;
//! - keeps the user's global and system configuration (SSH keys, credential helpers,
//!   `insteadOf`), but runs no hooks, no file-system monitor and no background
//!   maintenance;
//! - has no standard input (unless tfsum writes requests), no terminal (a session of
//!   its own: neither git nor ssh can prompt), and its own process group, so that a
//!   deadline or a cap stops git *and* the helpers it started (`git-remote-http`,
//!   `ssh`); the child is always reaped.
//!
//! Standard output is read as a stream ([`Running`]) with a cap on bytes and records
//! enforced while reading; standard error keeps only its tail. The settings and why:
//! docs/spec/modules.md §8.1; the caps and deadlines: docs/spec/modules.md §8.2.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdout, Command};
use tokio::task::JoinHandle;
use tokio::time::Instant;

use super::{last_lines, GitError, GitOptions};

/// The transports git may use, whatever `insteadOf` rewrites a URL to: the schemes a
/// git source may have (`source.rs`: https, http, ssh, git, file; an scp-style address
/// is ssh).
const ALLOWED_PROTOCOLS: &str = "https:http:ssh:git:file";

/// Variables that point git at a repository, work tree, index or object store.
const REPOSITORY_VARS: [&str; 16] = [
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_COMMON_DIR",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_NAMESPACE",
    "GIT_PREFIX",
    "GIT_IMPLICIT_WORK_TREE",
    "GIT_SHALLOW_FILE",
    "GIT_GRAFT_FILE",
    "GIT_REPLACE_REF_BASE",
    "GIT_NO_REPLACE_OBJECTS",
    "GIT_QUARANTINE_PATH",
    "GIT_DISCOVERY_ACROSS_FILESYSTEM",
    "GIT_CONFIG",
];

/// Settings given on the command line, which win over the user's files.
const SETTINGS: [&str; 6] = [
    // Never discover a bare repository: only the GIT_DIR given is used.
    "safe.bareRepository=explicit",
    "core.fsmonitor=false",
    // No maintenance detached into the background of a scratch repository.
    "gc.auto=0",
    "maintenance.auto=false",
    "fetch.recurseSubmodules=false",
    "fetch.writeCommitGraph=false",
];

/// The tail of standard error kept for messages.
const STDERR_TAIL: usize = 8 << 10;

/// How long standard error may stay open after git exited.
const STDERR_GRACE: Duration = Duration::from_millis(500);

/// When a command (or a step of several) must be done, and the span that named it.
#[derive(Debug, Clone, Copy)]
pub struct Deadline {
    at: Instant,
    after: Duration,
}

impl Deadline {
    pub fn after(after: Duration) -> Deadline {
        let now = Instant::now();
        let at = now
            .checked_add(after)
            .unwrap_or_else(|| now + Duration::from_secs(100 * 365 * 86_400));
        Deadline { at, after }
    }

    /// The earlier of the two.
    pub fn min(self, other: Deadline) -> Deadline {
        if self.at <= other.at {
            self
        } else {
            other
        }
    }

    /// The span the deadline was set for.
    pub fn span(&self) -> Duration {
        self.after
    }

    pub fn passed(&self) -> bool {
        Instant::now() >= self.at
    }

    pub(crate) fn timed_out(&self, what: &str) -> GitError {
        GitError::TimedOut {
            what: what.to_string(),
            after: self.after,
        }
    }
}

/// A repository tfsum created in a directory of its own: the only place a git command
/// runs. Made by [`Repo::init`] alone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Repo {
    dir: PathBuf,
}

impl Repo {
    /// `git init --bare` in `dir`, which must not exist yet or be empty. No template is
    /// copied (no hooks, no configuration but git's own).
    pub async fn init(
        options: &GitOptions,
        dir: &Path,
        deadline: Deadline,
        what: &str,
    ) -> Result<Repo, GitError> {
        let failed = |reason: String| GitError::Other {
            what: what.to_string(),
            reason,
        };
        let dir =
            std::path::absolute(dir).map_err(|e| failed(format!("{}: {e}", dir.display())))?;
        std::fs::create_dir_all(&dir).map_err(|e| failed(format!("{}: {e}", dir.display())))?;
        let empty = std::fs::read_dir(&dir)
            .map_err(|e| failed(format!("{}: {e}", dir.display())))?
            .next()
            .is_none();
        if !empty {
            return Err(failed(format!("{} is not a new directory", dir.display())));
        }
        let repo = Repo { dir };
        let mut init = GitCommand::new(options, &repo, deadline, what);
        init.args(["init", "-q", "--bare", "--template="]);
        init.output(1 << 16).await?;
        Ok(repo)
    }
}

/// A git command about to run.
pub struct GitCommand {
    command: Command,
    program: PathBuf,
    what: String,
    deadline: Deadline,
    input: Option<Vec<u8>>,
}

impl GitCommand {
    /// The only way to build a git command: in `repo`, with the settings in this
    /// module's documentation, done by `deadline`. `what` names the command in errors.
    pub fn new(options: &GitOptions, repo: &Repo, deadline: Deadline, what: &str) -> GitCommand {
        let mut command = Command::new(&options.program);
        for (key, value) in &options.env {
            command.env(key, value);
        }
        for name in REPOSITORY_VARS {
            command.env_remove(name);
        }
        let ceiling = repo.dir.parent().unwrap_or(&repo.dir);
        command
            .current_dir(&repo.dir)
            .env("GIT_DIR", &repo.dir)
            .env("GIT_CEILING_DIRECTORIES", ceiling)
            .env("GIT_ALLOW_PROTOCOL", ALLOWED_PROTOCOLS)
            .env("GIT_TERMINAL_PROMPT", "0")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        for setting in SETTINGS {
            command.arg("-c").arg(setting);
        }
        // A hooks directory that does not exist: not even the user's global hooks run.
        let mut hooks = std::ffi::OsString::from("core.hooksPath=");
        hooks.push(repo.dir.join("no-hooks"));
        command.arg("-c").arg(hooks);
        // A session of its own: git and its helpers form one process group to stop
        // together, and have no terminal, so ssh fails instead of asking for a
        // passphrase or a host key (as GIT_TERMINAL_PROMPT=0 does for git).
        #[cfg(unix)]
        // SAFETY: the hook runs in the child between fork and exec and calls only
        // setsid, which is async-signal-safe.
        unsafe {
            command.pre_exec(|| {
                if libc::setsid() == -1 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        GitCommand {
            command,
            program: options.program.clone(),
            what: what.to_string(),
            deadline,
            input: None,
        }
    }

    pub fn args<I, S>(&mut self, args: I) -> &mut GitCommand
    where
        I: IntoIterator<Item = S>,
        S: AsRef<std::ffi::OsStr>,
    {
        self.command.args(args);
        self
    }

    /// Bytes written to the command's standard input (then closed), from a task of their
    /// own so that neither pipe can fill up while the other waits.
    pub fn input(&mut self, bytes: Vec<u8>) -> &mut GitCommand {
        self.command.stdin(Stdio::piped());
        self.input = Some(bytes);
        self
    }

    /// Starts the command; at most `max_bytes` of standard output will be read.
    pub fn spawn(mut self, max_bytes: u64) -> Result<Running, GitError> {
        let mut child = self.command.spawn().map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                GitError::Missing(self.program.clone())
            } else {
                GitError::Other {
                    what: self.what.clone(),
                    reason: format!("cannot run {}: {e}", self.program.display()),
                }
            }
        })?;
        let input = match (self.input.take(), child.stdin.take()) {
            (Some(bytes), Some(mut stdin)) => Some(tokio::spawn(async move {
                // A git that stopped reading fails the write; its exit says why.
                let _ = stdin.write_all(&bytes).await;
            })),
            _ => None,
        };
        let tail = Arc::new(Mutex::new(Vec::new()));
        let stderr = child.stderr.take().map(|mut stderr| {
            let tail = Arc::clone(&tail);
            tokio::spawn(async move {
                let mut chunk = [0u8; 4096];
                while let Ok(n @ 1..) = stderr.read(&mut chunk).await {
                    let mut tail = tail.lock().unwrap_or_else(|p| p.into_inner());
                    tail.extend_from_slice(&chunk[..n]);
                    if tail.len() > 2 * STDERR_TAIL {
                        let cut = tail.len() - STDERR_TAIL;
                        tail.drain(..cut);
                    }
                }
            })
        });
        let stdout = child.stdout.take().ok_or_else(|| GitError::Other {
            what: self.what.clone(),
            reason: "git's standard output is not a pipe".to_string(),
        })?;
        Ok(Running {
            child,
            stdout: BufReader::new(stdout),
            stderr,
            tail,
            input,
            what: self.what,
            deadline: self.deadline,
            read: 0,
            max_bytes,
        })
    }

    /// Runs to the end and returns standard output, at most `max_bytes` of it.
    pub async fn output(self, max_bytes: u64) -> Result<Vec<u8>, GitError> {
        let mut running = self.spawn(max_bytes)?;
        let mut out = Vec::new();
        let read = async {
            while let Some(chunk) = running.chunk().await? {
                out.extend_from_slice(&chunk);
            }
            Ok(())
        }
        .await;
        running.end(read).await?;
        Ok(out)
    }
}

/// A running git command whose standard output is being read. Dropping it stops git
/// and everything git started.
pub struct Running {
    child: Child,
    stdout: BufReader<ChildStdout>,
    /// Reads standard error into `tail`, keeping its last [`STDERR_TAIL`] bytes or so.
    stderr: Option<JoinHandle<()>>,
    tail: Arc<Mutex<Vec<u8>>>,
    input: Option<JoinHandle<()>>,
    what: String,
    deadline: Deadline,
    read: u64,
    max_bytes: u64,
}

impl Running {
    /// The next record ending in `separator` (which is dropped), at most `max_len`
    /// bytes; `None` at the end of the output. A last record without a separator is
    /// returned as it is.
    pub async fn record(
        &mut self,
        separator: u8,
        max_len: usize,
    ) -> Result<Option<Vec<u8>>, GitError> {
        let mut record = Vec::new();
        loop {
            let filled = tokio::time::timeout_at(self.deadline.at, self.stdout.fill_buf()).await;
            let buf = match filled {
                Err(_) => return Err(self.deadline.timed_out(&self.what)),
                Ok(Err(e)) => return Err(read_error(&self.what, e)),
                Ok(Ok(buf)) => buf,
            };
            if buf.is_empty() {
                return Ok((!record.is_empty()).then_some(record));
            }
            let (take, ended) = match buf.iter().position(|b| *b == separator) {
                Some(at) => (at, true),
                None => (buf.len(), false),
            };
            if record.len() + take > max_len {
                return Err(GitError::Capped {
                    what: self.what.clone(),
                    limit: format!("a line longer than {max_len} bytes"),
                });
            }
            record.extend_from_slice(&buf[..take]);
            let used = take + usize::from(ended);
            self.stdout.consume(used);
            self.count(used as u64)?;
            if ended {
                return Ok(Some(record));
            }
        }
    }

    /// Exactly `len` bytes, counted against the cap before anything is allocated.
    pub async fn exact(&mut self, len: usize) -> Result<Vec<u8>, GitError> {
        self.count(len as u64)?;
        let mut out = vec![0; len];
        match tokio::time::timeout_at(self.deadline.at, self.stdout.read_exact(&mut out)).await {
            Err(_) => Err(self.deadline.timed_out(&self.what)),
            Ok(Err(e)) => Err(read_error(&self.what, e)),
            Ok(Ok(_)) => Ok(out),
        }
    }

    /// Whatever output is buffered next; `None` at the end.
    async fn chunk(&mut self) -> Result<Option<Vec<u8>>, GitError> {
        let filled = tokio::time::timeout_at(self.deadline.at, self.stdout.fill_buf()).await;
        let chunk = match filled {
            Err(_) => return Err(self.deadline.timed_out(&self.what)),
            Ok(Err(e)) => return Err(read_error(&self.what, e)),
            Ok(Ok([])) => return Ok(None),
            Ok(Ok(buf)) => buf.to_vec(),
        };
        self.stdout.consume(chunk.len());
        self.count(chunk.len() as u64)?;
        Ok(Some(chunk))
    }

    fn count(&mut self, bytes: u64) -> Result<(), GitError> {
        self.read = self.read.saturating_add(bytes);
        if self.read > self.max_bytes {
            return Err(GitError::Capped {
                what: self.what.clone(),
                limit: format!("more than {} bytes of output", self.max_bytes),
            });
        }
        Ok(())
    }

    /// Ends the command after its output was read as `read`: on success git must exit
    /// with status 0 by the deadline; on a failure git is stopped. When the output
    /// ended early, git's own exit status and message say why, if it failed.
    pub async fn end<T>(mut self, read: Result<T, GitError>) -> Result<T, GitError> {
        match read {
            Ok(value) => self.wait().await.map(|()| value),
            Err(GitError::Truncated { what }) => match self.wait().await {
                Err(failed) => Err(failed),
                Ok(()) => Err(GitError::Truncated { what }),
            },
            Err(error) => {
                self.stop().await;
                Err(error)
            }
        }
    }

    /// Waits for git to exit by the deadline; a failure status carries stderr's tail.
    async fn wait(&mut self) -> Result<(), GitError> {
        let status = match tokio::time::timeout_at(self.deadline.at, self.child.wait()).await {
            Err(_) => {
                self.stop().await;
                return Err(self.deadline.timed_out(&self.what));
            }
            Ok(Err(e)) => {
                self.stop().await;
                return Err(read_error(&self.what, e));
            }
            Ok(Ok(status)) => status,
        };
        let stderr = self.stderr_tail().await;
        if let Some(input) = self.input.take() {
            input.abort();
        }
        if status.success() {
            return Ok(());
        }
        Err(GitError::Failed {
            what: self.what.clone(),
            status: status.to_string(),
            stderr: last_lines(&stderr),
        })
    }

    /// Kills git's process group (git and the helpers it started), then reaps git.
    async fn stop(&mut self) {
        self.kill_group();
        let _ = self.child.start_kill();
        let _ = self.child.wait().await;
        if let Some(input) = self.input.take() {
            input.abort();
        }
        if let Some(stderr) = self.stderr.take() {
            stderr.abort();
        }
    }

    /// Signals the whole process group while git is not yet reaped: its id is still
    /// git's then, so the signal cannot reach a stranger that reused it.
    fn kill_group(&self) {
        #[cfg(unix)]
        if let Some(pid) = self.child.id().and_then(|id| i32::try_from(id).ok()) {
            // SAFETY: kill has no memory preconditions; -pid names the group (and
            // session) that setsid made for this child, which has not been reaped.
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
            }
        }
    }

    /// The end of standard error once git has exited: what arrives within a moment
    /// (a helper git left behind may hold the pipe open).
    async fn stderr_tail(&mut self) -> Vec<u8> {
        if let Some(handle) = self.stderr.take() {
            let abort = handle.abort_handle();
            let grace = Deadline::after(STDERR_GRACE).min(self.deadline);
            if tokio::time::timeout_at(grace.at, handle).await.is_err() {
                abort.abort();
            }
        }
        std::mem::take(&mut *self.tail.lock().unwrap_or_else(|p| p.into_inner()))
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        // Not reaped yet (reaping clears the id): stop the group; tokio's
        // kill_on_drop then kills and reaps git itself.
        self.kill_group();
        if let Some(input) = self.input.take() {
            input.abort();
        }
        if let Some(stderr) = self.stderr.take() {
            stderr.abort();
        }
    }
}

fn read_error(what: &str, e: std::io::Error) -> GitError {
    if e.kind() == std::io::ErrorKind::UnexpectedEof {
        return GitError::Truncated {
            what: what.to_string(),
        };
    }
    GitError::Other {
        what: what.to_string(),
        reason: format!("reading git's output: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;
    use std::ffi::OsStr;

    /// What a command is given: a hostile caller environment cannot point it elsewhere.
    #[test]
    fn every_command_runs_in_its_own_repository() {
        let options = GitOptions {
            env: vec![
                ("GIT_DIR".into(), "/checkout/.git".into()),
                ("GIT_WORK_TREE".into(), "/checkout".into()),
                ("GIT_ALLOW_PROTOCOL".into(), "ext".into()),
                ("GIT_CONFIG_GLOBAL".into(), "/home/me/.gitconfig".into()),
            ],
            ..GitOptions::default()
        };
        let repo = Repo {
            dir: PathBuf::from("/tmp/tfsum-x/repo"),
        };
        let command = GitCommand::new(&options, &repo, Deadline::after(Duration::ZERO), "w");
        let std = command.command.as_std();
        assert_eq!(std.get_current_dir(), Some(Path::new("/tmp/tfsum-x/repo")));
        let envs: BTreeMap<&OsStr, Option<&OsStr>> = std.get_envs().collect();
        let var = |name: &str| envs.get(OsStr::new(name)).copied().flatten();
        assert_eq!(var("GIT_DIR"), Some(OsStr::new("/tmp/tfsum-x/repo")));
        assert_eq!(
            var("GIT_CEILING_DIRECTORIES"),
            Some(OsStr::new("/tmp/tfsum-x"))
        );
        assert_eq!(
            var("GIT_ALLOW_PROTOCOL"),
            Some(OsStr::new(ALLOWED_PROTOCOLS))
        );
        assert_eq!(var("GIT_TERMINAL_PROMPT"), Some(OsStr::new("0")));
        // The user's own configuration still applies.
        assert_eq!(
            var("GIT_CONFIG_GLOBAL"),
            Some(OsStr::new("/home/me/.gitconfig"))
        );
        for name in REPOSITORY_VARS.iter().filter(|n| **n != "GIT_DIR") {
            assert_eq!(envs.get(OsStr::new(name)), Some(&None), "{name} is removed");
        }
        let args: Vec<String> = std
            .get_args()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        for setting in SETTINGS {
            assert!(args.windows(2).any(|w| w == ["-c", setting]), "{args:?}");
        }
        assert!(args.contains(&"core.hooksPath=/tmp/tfsum-x/repo/no-hooks".to_string()));
        assert!(!ALLOWED_PROTOCOLS
            .split(':')
            .any(|p| p == "ext" || p == "fd"));
    }
}
