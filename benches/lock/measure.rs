//! Runs one child process and measures it: wall time, exit status, CPU time and the peak
//! RSS of that process alone.
//!
//! Two Linux facts shape this module:
//!
//! - `getrusage(RUSAGE_CHILDREN)` reports the maximum over every child reaped so far, so
//!   a large Terraform run would hide a small tfsum one. `wait4` returns the usage of
//!   exactly the process it reaps.
//! - `execve` folds the high-water RSS of the memory image it replaces into the new
//!   program's `ru_maxrss` (`setmax_mm_hiwater_rss` in `exec_mmap`). A child spawned by
//!   the benchmark, which holds hundreds of MB of packages for the fake registry, would
//!   start with the benchmark's RSS as its "peak".
//!
//! So the benchmark does not spawn the measured program itself: it re-runs its own
//! executable as a small helper ([`helper_main`]), which spawns the program from its own
//! tiny image, waits for it with `wait4`, and writes the figures to a file.

use std::ffi::{OsStr, OsString};
use std::io;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Set on the helper: where to write its report. Its presence selects helper mode.
const REPORT_ENV: &str = "TFSUM_BENCH_MEASURE_REPORT";
/// Set on the helper: milliseconds before it kills the program.
const TIMEOUT_ENV: &str = "TFSUM_BENCH_MEASURE_TIMEOUT_MS";

/// A program to run with exactly `env` as its environment.
pub struct Job {
    pub program: PathBuf,
    pub args: Vec<OsString>,
    pub env: Vec<(OsString, OsString)>,
}

/// What one run did.
pub struct Measured {
    pub wall: Duration,
    /// The exit code, or `None` when a signal ended the process.
    pub code: Option<i32>,
    pub signal: Option<i32>,
    pub timed_out: bool,
    /// `ru_maxrss` of the program, in bytes.
    pub peak_rss: u64,
    /// User plus system CPU time of the program.
    pub cpu: Duration,
    pub stdout: String,
    pub stderr: String,
}

impl Measured {
    pub fn success(&self) -> bool {
        self.code == Some(0) && !self.timed_out
    }

    /// `exit 0`, `exit 2`, `signal 9`, `timeout`.
    pub fn status(&self) -> String {
        match (self.timed_out, self.code, self.signal) {
            (true, _, _) => "timeout".to_owned(),
            (_, Some(code), _) => format!("exit {code}"),
            (_, None, Some(signal)) => format!("signal {signal}"),
            (_, None, None) => "unknown".to_owned(),
        }
    }

    /// The last `lines` lines of stderr (or stdout when stderr is empty), for failures.
    pub fn tail(&self, lines: usize) -> String {
        let text = if self.stderr.trim().is_empty() {
            &self.stdout
        } else {
            &self.stderr
        };
        let all: Vec<&str> = text.lines().collect();
        all[all.len().saturating_sub(lines)..].join("\n")
    }
}

/// Runs `job` through the helper, killing it after `timeout`; its stdout and stderr go
/// to `LOGS.stdout` / `LOGS.stderr` and are read back afterwards.
pub fn run(job: &Job, logs: &Path, timeout: Duration) -> io::Result<Measured> {
    run_in(job, Path::new("."), logs, timeout)
}

/// [`run`] with `dir` as the program's working directory.
pub fn run_in(job: &Job, dir: &Path, logs: &Path, timeout: Duration) -> io::Result<Measured> {
    let stdout_path = logs.with_extension("stdout");
    let stderr_path = logs.with_extension("stderr");
    let report_path = logs.with_extension("rusage");
    let helper = Command::new(std::env::current_exe()?)
        .arg(&job.program)
        .args(&job.args)
        .env_clear()
        .envs(job.env.iter().map(|(k, v)| (k, v)))
        .env(REPORT_ENV, &report_path)
        .env(TIMEOUT_ENV, timeout.as_millis().to_string())
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&stdout_path)?)
        .stderr(std::fs::File::create(&stderr_path)?)
        .status()?;
    let stdout = std::fs::read_to_string(&stdout_path).unwrap_or_default();
    let stderr = std::fs::read_to_string(&stderr_path).unwrap_or_default();
    if !helper.success() {
        return Err(io::Error::other(format!(
            "the measuring helper failed ({helper}): {}",
            stderr.trim()
        )));
    }
    let report = std::fs::read_to_string(&report_path)?;
    let fields: Vec<i64> = report
        .split_whitespace()
        .map(|field| field.parse().unwrap_or(-1))
        .collect();
    let [wall_ns, code, signal, timed_out, max_rss_kb, cpu_us] = fields[..] else {
        return Err(io::Error::other(format!("bad helper report {report:?}")));
    };
    let known = |n: i64| i32::try_from(n).ok().filter(|n| *n >= 0);
    Ok(Measured {
        wall: Duration::from_nanos(u64::try_from(wall_ns).unwrap_or(0)),
        code: known(code),
        signal: known(signal),
        timed_out: timed_out == 1,
        // Linux reports kilobytes.
        peak_rss: u64::try_from(max_rss_kb).unwrap_or(0) * 1024,
        cpu: Duration::from_micros(u64::try_from(cpu_us).unwrap_or(0)),
        stdout,
        stderr,
    })
}

/// In helper mode (the benchmark re-ran itself with [`REPORT_ENV`] set): run the program
/// named by the arguments, report, and return the helper's exit code. `None` otherwise.
pub fn helper_main() -> Option<ExitCode> {
    let report = std::env::var_os(REPORT_ENV)?;
    Some(match helper(&report) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bench measuring helper: {e}");
            ExitCode::from(2)
        }
    })
}

fn helper(report: &OsStr) -> io::Result<()> {
    let timeout = std::env::var(TIMEOUT_ENV)
        .ok()
        .and_then(|ms| ms.parse().ok())
        .map_or(Duration::from_secs(900), Duration::from_millis);
    let mut args = std::env::args_os().skip(1);
    let program = args
        .next()
        .ok_or_else(|| io::Error::other("no program to run"))?;

    let start = Instant::now();
    let child = Command::new(&program)
        .args(args)
        .env_remove(REPORT_ENV)
        .env_remove(TIMEOUT_ENV)
        .stdin(Stdio::null())
        .spawn()
        .map_err(|e| io::Error::other(format!("starting {}: {e}", program.to_string_lossy())))?;
    let pid = libc::pid_t::try_from(child.id()).map_err(io::Error::other)?;

    let (done, finished) = mpsc::channel::<()>();
    let watchdog = std::thread::spawn(move || {
        if finished.recv_timeout(timeout) == Err(mpsc::RecvTimeoutError::Timeout) {
            // SAFETY: a plain syscall. The child is reaped only by wait4 below, which
            // signals this thread right after, so the pid still names our child.
            unsafe { libc::kill(pid, libc::SIGKILL) };
            return true;
        }
        false
    });
    let (status, usage) = wait4(pid)?;
    let wall = start.elapsed();
    let _ = done.send(());
    let timed_out = watchdog.join().unwrap_or(false);
    // Already reaped: dropping `Child` only closes handles.
    drop(child);

    let (code, signal) = if libc::WIFEXITED(status) {
        (libc::WEXITSTATUS(status), -1)
    } else if libc::WIFSIGNALED(status) {
        (-1, libc::WTERMSIG(status))
    } else {
        (-1, -1)
    };
    std::fs::write(
        report,
        format!(
            "{} {code} {signal} {} {} {}\n",
            wall.as_nanos(),
            u8::from(timed_out),
            usage.ru_maxrss,
            micros(usage.ru_utime) + micros(usage.ru_stime)
        ),
    )
}

fn micros(time: libc::timeval) -> i64 {
    time.tv_sec * 1_000_000 + time.tv_usec
}

fn wait4(pid: libc::pid_t) -> io::Result<(libc::c_int, libc::rusage)> {
    let mut status: libc::c_int = 0;
    // SAFETY: rusage is plain old data; all-zero is a valid value.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: both pointers are to live locals of the right type.
        let reaped = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        if reaped == pid {
            return Ok((status, usage));
        }
        let error = io::Error::last_os_error();
        if error.kind() != io::ErrorKind::Interrupted {
            return Err(error);
        }
    }
}
