//! Running the `tfsum` binary from tests.

use std::path::Path;
use std::process::{Command, Output};

/// Runs `tfsum ARGS` in `dir` against the registry named in `cli_config`, with a private
/// cache directory and HOME, so tests never share state or read the user's files.
pub fn run(dir: &Path, cli_config: &Path, cache: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tfsum"))
        .args(args)
        .current_dir(dir)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", cache.join("home"))
        .env("TF_CLI_CONFIG_FILE", cli_config)
        .env("TFSUM_CACHE_DIR", cache.join("cache"))
        .env("NO_PROXY", "*")
        .output()
        .expect("run tfsum")
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
