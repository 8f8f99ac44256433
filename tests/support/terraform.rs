//! The conformance oracle: real Terraform v1.0.3, run hermetically against the fake
//! registry.
//!
//! The binary comes from `TFSUM_TERRAFORM` or `target/oracle/terraform-1.0.3`, which
//! `scripts/fetch-terraform.sh` installs. Tests that need it fail, never skip, when it is
//! missing: a skipped oracle would let conformance rot unnoticed.
//!
//! Each run gets a cleared environment: `PATH`, a fresh empty `HOME` (so no
//! `~/.terraformrc`, `~/.terraform.d` or plugin cache), `TF_CLI_CONFIG_FILE`,
//! `TF_IN_AUTOMATION=1`, `CHECKPOINT_DISABLE=1` (no call home) and `NO_PROXY` for loopback.

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use tempfile::TempDir;

/// How long one Terraform run may take before the harness kills it.
const TIMEOUT: Duration = Duration::from_secs(180);

/// The crate root, where `testdata/` and `target/` live.
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The Terraform binary to use as the oracle; panics with instructions when it is missing.
pub fn binary() -> PathBuf {
    let path = match std::env::var_os("TFSUM_TERRAFORM") {
        Some(path) => PathBuf::from(path),
        None => repo_root().join("target/oracle/terraform-1.0.3"),
    };
    assert!(
        path.is_file(),
        "Terraform oracle not found at {}: run scripts/fetch-terraform.sh (make test does), \
         or set TFSUM_TERRAFORM",
        path.display()
    );
    path
}

/// Runs `terraform ARGS` in `dir` with the hermetic environment, returning its output.
pub fn run(dir: &Path, cli_config: &Path, args: &[&str]) -> Output {
    run_with(dir, cli_config, args, &[])
}

/// [`run`] with `env` set on top of the hermetic environment.
pub fn run_with(dir: &Path, cli_config: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let home = TempDir::new().expect("temp HOME for terraform");
    let mut command = Command::new(binary());
    command
        .args(args)
        .current_dir(dir)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home.path())
        .env("TF_CLI_CONFIG_FILE", cli_config)
        .env("TF_IN_AUTOMATION", "1")
        .env("CHECKPOINT_DISABLE", "1")
        .env("NO_PROXY", "127.0.0.1,localhost")
        .stdin(Stdio::null());
    for (name, value) in env {
        command.env(name, value);
    }
    output_with_timeout(command, TIMEOUT)
}

/// `terraform providers lock -no-color -platform=P…` in `dir` (spec §9).
pub fn providers_lock(dir: &Path, platforms: &[&str], cli_config: &Path) -> Output {
    let flags: Vec<String> = platforms.iter().map(|p| format!("-platform={p}")).collect();
    let mut args = vec!["providers", "lock", "-no-color"];
    args.extend(flags.iter().map(String::as_str));
    run(dir, cli_config, &args)
}

/// `terraform init -backend=false -input=false -no-color` in `dir`.
pub fn init_backend_false(dir: &Path, cli_config: &Path) -> Output {
    run(
        dir,
        cli_config,
        &["init", "-backend=false", "-input=false", "-no-color"],
    )
}

/// Panics with Terraform's stdout and stderr unless it exited successfully.
pub fn assert_success(output: &Output, what: &str) {
    assert!(
        output.status.success(),
        "{what} failed ({}):\n--- stdout ---\n{}\n--- stderr ---\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
    );
}

/// Stdout and stderr together, for asserting on messages.
pub fn combined_output(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// The `.terraform.lock.hcl` in `dir`.
pub fn read_lock_file(dir: &Path) -> String {
    let path = dir.join(".terraform.lock.hcl");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

/// The placeholder that fixture files use for the fake registry's `127.0.0.1:PORT`.
pub const REGISTRY_PLACEHOLDER: &str = "{{REGISTRY}}";

/// A temporary copy of `testdata/FIXTURE/` with [`REGISTRY_PLACEHOLDER`] replaced by
/// `registry_host` in every configuration and lock file (`*.tf`, `*.tf.json`, `*.tofu`,
/// `*.tofu.json`, `*.hcl`). Call it twice to give tfsum and Terraform identical inputs.
pub fn conformance_dir(fixture: &str, registry_host: &str) -> TempDir {
    let source = repo_root().join("testdata").join(fixture);
    assert!(
        source.is_dir(),
        "fixture {} is not a directory",
        source.display()
    );
    let temp = TempDir::new().expect("temp dir for fixture");
    copy_tree(&source, temp.path(), registry_host);
    temp
}

/// A temporary module directory holding `files` (relative path, content), with
/// [`REGISTRY_PLACEHOLDER`] replaced as in [`conformance_dir`].
pub fn module_dir(files: &[(&str, &str)], registry_host: &str) -> TempDir {
    let temp = TempDir::new().expect("temp dir for module");
    for (relative, content) in files {
        let path = temp.path().join(relative);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("create module subdirectory");
        }
        let content = content.replace(REGISTRY_PLACEHOLDER, registry_host);
        std::fs::write(&path, content)
            .unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
    }
    temp
}

fn copy_tree(from: &Path, to: &Path, registry_host: &str) {
    let entries =
        std::fs::read_dir(from).unwrap_or_else(|e| panic!("reading {}: {e}", from.display()));
    for entry in entries {
        let entry = entry.expect("directory entry");
        let (source, target) = (entry.path(), to.join(entry.file_name()));
        let file_type = entry.file_type().expect("file type");
        if file_type.is_dir() {
            std::fs::create_dir_all(&target).expect("create fixture subdirectory");
            copy_tree(&source, &target, registry_host);
        } else if substitutes(&source) {
            let text = std::fs::read_to_string(&source)
                .unwrap_or_else(|e| panic!("reading {}: {e}", source.display()));
            std::fs::write(&target, text.replace(REGISTRY_PLACEHOLDER, registry_host))
                .unwrap_or_else(|e| panic!("writing {}: {e}", target.display()));
        } else {
            std::fs::copy(&source, &target)
                .unwrap_or_else(|e| panic!("copying {}: {e}", source.display()));
        }
    }
}

fn substitutes(path: &Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    [".tf", ".tf.json", ".tofu", ".tofu.json", ".hcl"]
        .iter()
        .any(|ext| name.ends_with(ext))
}

/// `Command::output` with a deadline, so a hung oracle fails the test instead of the CI job.
fn output_with_timeout(mut command: Command, timeout: Duration) -> Output {
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("starting {:?}: {e}", command.get_program()));
    let mut stdout = child.stdout.take().expect("piped stdout");
    let mut stderr = child.stderr.take().expect("piped stderr");
    let out_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = stdout.read_to_end(&mut buf);
        buf
    });
    let err_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = stderr.read_to_end(&mut buf);
        buf
    });
    let deadline = Instant::now() + timeout;
    let status = loop {
        if let Some(status) = child.try_wait().expect("waiting for terraform") {
            break status;
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "{:?} did not finish within {timeout:?}",
                command.get_args().collect::<Vec<_>>()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Output {
        status,
        stdout: out_reader.join().expect("stdout reader"),
        stderr: err_reader.join().expect("stderr reader"),
    }
}
