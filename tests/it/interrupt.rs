//! SIGINT/SIGTERM in the middle of a write: tfsum finishes the file it is replacing, then
//! exits 130; every lock file is either its old self or fully written, and no temporary
//! file is left behind.
//!
//! `TFSUM_TEST_WRITE_DELAY_MS` holds every replacement open (the temporary file written,
//! not yet renamed) so the signal lands while a write is under way: a handler that did
//! not wait for it would leave the temporary file and a half-done set of lock files.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::fake_registry::FakeRegistry;
use crate::support::terraform;

const OLD_LOCK: &str = "# This file is maintained automatically by \"terraform init\".\n# Manual edits may be lost in future updates.\n";
const ROOTS: usize = 4;

fn temporaries(dir: &Path) -> Vec<String> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".tfsum-"))
        .collect()
}

#[test]
fn interrupt_during_a_write_finishes_it_and_starts_no_other() {
    for signal in ["INT", "TERM"] {
        let registry = FakeRegistry::builder()
            .provider("hashicorp", "null")
            .version("1.0.0")
            .platforms(&["linux_amd64"])
            .start();
        let files: Vec<(String, String)> = (0..ROOTS)
            .map(|i| {
                (
                    format!("r{i}/main.tf"),
                    "terraform {\n  required_providers {\n    p = { source = \"{{REGISTRY}}/hashicorp/null\" }\n  }\n}\n".to_string(),
                )
            })
            .collect();
        let borrowed: Vec<(&str, &str)> = files
            .iter()
            .map(|(a, b)| (a.as_str(), b.as_str()))
            .collect();
        let repo = terraform::module_dir(&borrowed, &registry.host());
        let lock = |i: usize| repo.path().join(format!("r{i}/.terraform.lock.hcl"));
        for i in 0..ROOTS {
            std::fs::write(lock(i), OLD_LOCK).unwrap();
        }
        let scratch = tempfile::TempDir::new().unwrap();
        let cli = scratch.path().join("cli.tfrc");
        registry.write_cli_config(&cli);

        let child = Command::new(env!("CARGO_BIN_EXE_tfsum"))
            .args(["lock", "-r", "--platform", "linux_amd64", "."])
            .current_dir(repo.path())
            .env("TF_CLI_CONFIG_FILE", &cli)
            .env("TFSUM_CACHE_DIR", scratch.path().join("cache"))
            .env("TFSUM_TEST_WRITE_DELAY_MS", "1500")
            .env("HOME", scratch.path())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Wait until a lock file's replacement is under way, then interrupt.
        let deadline = Instant::now() + Duration::from_secs(30);
        while temporaries(repo.path()).is_empty() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert_eq!(
            temporaries(repo.path()).len(),
            1,
            "SIG{signal}: no write began"
        );
        let status = Command::new("kill")
            .args([format!("-{signal}"), child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
        let output = child.wait_with_output().unwrap();
        assert_eq!(
            output.status.code(),
            Some(130),
            "SIG{signal}: {}",
            String::from_utf8_lossy(&output.stderr)
        );

        assert_eq!(
            temporaries(repo.path()),
            Vec::<String>::new(),
            "SIG{signal}"
        );
        let written: Vec<bool> = (0..ROOTS)
            .map(|i| {
                let text = std::fs::read_to_string(lock(i)).unwrap();
                if text != OLD_LOCK {
                    tfsum::internals::parse_lock_file(&text, "registry.terraform.io")
                        .unwrap_or_else(|e| panic!("r{i} holds a broken lock file: {e}\n{text}"));
                }
                text != OLD_LOCK
            })
            .collect();
        // The write under way was finished; none started after the signal.
        assert_eq!(
            written.iter().filter(|w| **w).count(),
            1,
            "SIG{signal}: {written:?}"
        );
    }
}
