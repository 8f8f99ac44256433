//! Running the `tfsum` binary from tests: the one runner every integration test uses.

use std::path::Path;
use std::process::{Command, Output};

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
