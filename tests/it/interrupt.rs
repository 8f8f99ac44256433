//! SIGINT/SIGTERM in the middle of a run: every lock file is either its old self or
//! fully written, and no temporary file is left behind.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::support::fake_registry::FakeRegistry;
use crate::support::terraform;

const OLD_LOCK: &str = "# This file is maintained automatically by \"terraform init\".\n# Manual edits may be lost in future updates.\n";

fn leftovers(dir: &Path) -> Vec<String> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".tfsum-") || n.starts_with(".tmp-"))
        .collect()
}

#[test]
fn interrupt_during_downloads_leaves_no_partial_files() {
    for signal in ["INT", "TERM"] {
        let registry = FakeRegistry::builder()
            .provider("hashicorp", "big")
            .version("1.0.0")
            .platforms(&["linux_amd64", "darwin_arm64"])
            .payload(2_000_000)
            .provider("hashicorp", "small")
            .version("1.0.0")
            .platforms(&["linux_amd64", "darwin_arm64"])
            .start();
        // Slow enough that the run is still downloading when the signal arrives.
        registry.set_bandwidth(Some(400_000));
        let mut files = Vec::new();
        for i in 0..4 {
            let provider = if i % 2 == 0 { "big" } else { "small" };
            files.push((
                format!("r{i}/main.tf"),
                format!(
                    "terraform {{\n  required_providers {{\n    p = {{ source = \"{{{{REGISTRY}}}}/hashicorp/{provider}\" }}\n  }}\n}}\n"
                ),
            ));
        }
        let borrowed: Vec<(&str, &str)> = files
            .iter()
            .map(|(a, b)| (a.as_str(), b.as_str()))
            .collect();
        let repo = terraform::module_dir(&borrowed, &registry.host());
        for i in 0..4 {
            std::fs::write(
                repo.path().join(format!("r{i}/.terraform.lock.hcl")),
                OLD_LOCK,
            )
            .unwrap();
        }
        let scratch = tempfile::TempDir::new().unwrap();
        let cli = scratch.path().join("cli.tfrc");
        registry.write_cli_config(&cli);

        let child = Command::new(env!("CARGO_BIN_EXE_tfsum"))
            .args(["lock", "-r", "--platform", "linux_amd64,darwin_arm64", "."])
            .current_dir(repo.path())
            .env("TF_CLI_CONFIG_FILE", &cli)
            .env("TFSUM_CACHE_DIR", scratch.path().join("cache"))
            .env("HOME", scratch.path())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Wait until a zip download is under way, then interrupt.
        let deadline = std::time::Instant::now() + Duration::from_secs(20);
        while registry.count(".zip") == 0 && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        std::thread::sleep(Duration::from_millis(300));
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

        assert!(
            leftovers(repo.path()).is_empty(),
            "{:?}",
            leftovers(repo.path())
        );
        assert!(
            leftovers(scratch.path()).is_empty(),
            "{:?}",
            leftovers(scratch.path())
        );
        for i in 0..4 {
            let text =
                std::fs::read_to_string(repo.path().join(format!("r{i}/.terraform.lock.hcl")))
                    .unwrap();
            if text != OLD_LOCK {
                tfsum::lockfile::parse(&text, "registry.terraform.io")
                    .unwrap_or_else(|e| panic!("r{i} holds a broken lock file: {e}\n{text}"));
            }
        }
    }
}
