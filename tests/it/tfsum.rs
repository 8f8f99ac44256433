//! Running the `tfsum` binary from tests: the one runner every integration test uses.

use std::io::Read;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// `tfsum` in `dir` as tests run it: a cleared environment but for `PATH`, a private HOME
/// (`scratch/home`) and cache (`scratch/cache`), the registry named in `cli_config`, and
/// no proxy; so tests never share state or read the user's files.
pub fn command(dir: &Path, cli_config: &Path, scratch: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_tfsum"));
    command
        .current_dir(dir)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", scratch.join("home"))
        .env("TF_CLI_CONFIG_FILE", cli_config)
        .env("TFSUM_CACHE_DIR", scratch.join("cache"))
        .env("NO_PROXY", "*");
    command
}

/// Runs `tfsum ARGS` (see [`command`]).
pub fn run(dir: &Path, cli_config: &Path, scratch: &Path, args: &[&str]) -> Output {
    run_with(dir, cli_config, scratch, args, &[])
}

/// Runs `tfsum ARGS` with `env` set on top of [`command`]'s environment.
pub fn run_with(
    dir: &Path,
    cli_config: &Path,
    scratch: &Path,
    args: &[&str],
    env: &[(&str, &str)],
) -> Output {
    run_within(dir, cli_config, scratch, args, env, None)
}

/// As [`run_with`]; with a `limit`, tfsum is killed and the test fails once it runs
/// longer (a watchdog: a hang fails instead of hanging the suite).
pub fn run_within(
    dir: &Path,
    cli_config: &Path,
    scratch: &Path,
    args: &[&str],
    env: &[(&str, &str)],
    limit: Option<std::time::Duration>,
) -> Output {
    let mut command = command(dir, cli_config, scratch);
    command.args(args);
    for (name, value) in env {
        command.env(name, value);
    }
    match limit {
        None => command.output().expect("run tfsum"),
        Some(limit) => crate::support::deadline::output_within(&mut command, limit),
    }
}

pub fn text(output: &Output) -> String {
    format!(
        "status: {:?}\n--- stdout\n{}--- stderr\n{}",
        output.status.code(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

pub fn assert_ok(output: &Output) {
    assert!(output.status.success(), "tfsum failed:\n{}", text(output));
}

/// What a watched run did, measured from outside.
pub struct Watched {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub peak_rss: u64,
    pub wall: Duration,
    /// User plus system CPU time of the process (all its threads).
    pub cpu: Duration,
}

/// What a watched run may use before the watchdog kills it.
pub struct Bounds {
    pub max_rss: u64,
    pub wall: Duration,
    /// CPU time (user plus system): steadier than wall time on a loaded machine.
    pub cpu: Option<Duration>,
}

/// Runs `command` under a watchdog: the process is killed, and the test fails with what
/// it printed so far, once it passes one of `bounds`; a test never hangs on a run that
/// lost its bound.
// The child is reaped by `wait4`, which also reports its CPU time; clippy cannot see it.
#[allow(clippy::zombie_processes)]
pub fn watched(mut command: Command, bounds: Bounds) -> Watched {
    command.stdout(Stdio::piped()).stderr(Stdio::piped());
    let started = Instant::now();
    let mut child: Child = command.spawn().expect("spawn tfsum");
    let out = drain(child.stdout.take().expect("stdout"));
    let err = drain(child.stderr.take().expect("stderr"));
    let pid = child.id() as libc::pid_t;
    let mut peak = 0;
    let (code, cpu) = loop {
        if let Some(done) = reap(pid) {
            break done;
        }
        peak = peak.max(peak_rss(child.id()).unwrap_or(0));
        let spent = cpu_so_far(child.id()).unwrap_or_default();
        let verdict = if peak > bounds.max_rss {
            Some(format!("used more than {} bytes", bounds.max_rss))
        } else if started.elapsed() > bounds.wall {
            Some(format!("ran longer than {:?}", bounds.wall))
        } else if bounds.cpu.is_some_and(|cpu| spent > cpu) {
            Some(format!("used more than {:?} of CPU", bounds.cpu))
        } else {
            None
        };
        if let Some(verdict) = verdict {
            let _ = child.kill();
            let _ = reap_blocking(pid);
            panic!(
                "tfsum {verdict}; stderr so far:\n{}",
                err.join().unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    Watched {
        code,
        stdout: out.join().unwrap_or_default(),
        stderr: err.join().unwrap_or_default(),
        peak_rss: peak,
        wall: started.elapsed(),
        cpu,
    }
}

fn drain(mut pipe: impl Read + Send + 'static) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut text = String::new();
        let _ = pipe.read_to_string(&mut text);
        text
    })
}

/// The exit code and CPU time of `pid` once it has exited (reaping it), else `None`.
fn reap(pid: libc::pid_t) -> Option<(Option<i32>, Duration)> {
    wait4(pid, libc::WNOHANG)
}

fn reap_blocking(pid: libc::pid_t) -> Option<(Option<i32>, Duration)> {
    wait4(pid, 0)
}

fn wait4(pid: libc::pid_t, options: libc::c_int) -> Option<(Option<i32>, Duration)> {
    let mut status = 0;
    // SAFETY: both out-pointers are valid for the call; `pid` is our own child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let reaped = unsafe { libc::wait4(pid, &mut status, options, &mut usage) };
    if reaped != pid {
        return None;
    }
    let time = |t: libc::timeval| {
        Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64)
    };
    let code = libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
    Some((code, time(usage.ru_utime) + time(usage.ru_stime)))
}

/// The peak resident memory of `pid` so far (`VmHWM`), in bytes.
pub(crate) fn peak_rss(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// The CPU time `pid` used so far (`utime` plus `stime` of `/proc/PID/stat`).
fn cpu_so_far(pid: u32) -> Option<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command name, which is in parentheses and may hold spaces.
    let rest = &stat[stat.rfind(')')? + 2..];
    let mut fields = rest.split_whitespace().skip(11);
    let utime: u64 = fields.next()?.parse().ok()?;
    let stime: u64 = fields.next()?.parse().ok()?;
    // SAFETY: sysconf has no preconditions.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    let ticks = u64::try_from(ticks).ok().filter(|&t| t > 0)?;
    Some(Duration::from_millis((utime + stime) * 1000 / ticks))
}
