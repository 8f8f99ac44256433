//! `windows_arm64`, official since Terraform 1.15 and OpenTofu 1.13 (`docs/spec/versions.md`):
//! the lock file format has no list of platforms, so tfsum treats it as any `OS_ARCH`. These
//! tests keep it that way end to end: from `--platform` and `.tfsum.toml` to the `h1:` in
//! the file, byte for byte as `terraform providers lock -platform=windows_arm64` writes it,
//! and a clear error for the many providers that publish no `windows_arm64` package yet.

use tempfile::TempDir;

use crate::support::fake_registry::FakeRegistry;
use crate::support::terraform;
use crate::tfsum;

const MAIN_TF: &str = r#"terraform {
  required_providers {
    null = {
      source  = "{{REGISTRY}}/hashicorp/null"
      version = "~> 3.2"
    }
  }
}
"#;

#[test]
fn windows_arm64_hashes_are_locked_as_terraform_locks_them() {
    let registry = FakeRegistry::builder()
        .provider("hashicorp", "null")
        .version("3.2.1")
        .platforms(&["linux_amd64", "windows_amd64", "windows_arm64"])
        .start();
    let scratch = TempDir::new().unwrap();
    let cli_config = scratch.path().join("cli.tfrc");
    registry.write_cli_config(&cli_config);
    let host = registry.host();
    let platforms = ["linux_amd64", "windows_arm64"];

    let by_terraform = terraform::module_dir(&[("main.tf", MAIN_TF)], &host);
    let out = terraform::providers_lock(by_terraform.path(), &platforms, &cli_config);
    terraform::assert_success(&out, "terraform providers lock");
    let want = terraform::read_lock_file(by_terraform.path());

    let by_tfsum = terraform::module_dir(&[("main.tf", MAIN_TF)], &host);
    let out = tfsum::run(
        by_tfsum.path(),
        &cli_config,
        scratch.path(),
        &["lock", "--platform=linux_amd64,windows_arm64", "."],
    );
    tfsum::assert_ok(&out);
    let got = terraform::read_lock_file(by_tfsum.path());
    pretty_assertions::assert_eq!(got, want, "tfsum (left) vs Terraform 1.0.3 (right)");

    let h1 = registry.expected_h1("hashicorp", "null", "3.2.1", "windows_arm64");
    assert!(got.contains(&format!("\"{h1}\"")), "{got}");
    let windows_amd64 = registry.expected_h1("hashicorp", "null", "3.2.1", "windows_amd64");
    assert!(
        !got.contains(&windows_amd64),
        "only the requested platforms"
    );

    // The platform from `.tfsum.toml` alone.
    std::fs::remove_file(by_tfsum.path().join(".terraform.lock.hcl")).unwrap();
    std::fs::write(
        by_tfsum.path().join(".tfsum.toml"),
        "platforms = [\"windows_arm64\"]\n",
    )
    .unwrap();
    let out = tfsum::run(by_tfsum.path(), &cli_config, scratch.path(), &["lock", "."]);
    tfsum::assert_ok(&out);
    let got = terraform::read_lock_file(by_tfsum.path());
    let linux = registry.expected_h1("hashicorp", "null", "3.2.1", "linux_amd64");
    assert!(got.contains(&format!("\"{h1}\"")), "{got}");
    assert!(!got.contains(&linux), "{got}");
}

#[test]
fn a_provider_without_a_windows_arm64_package_is_named() {
    let registry = FakeRegistry::builder()
        .provider("hashicorp", "null")
        .version("3.2.1")
        .platforms(&["linux_amd64", "windows_amd64"])
        .start();
    let scratch = TempDir::new().unwrap();
    let cli_config = scratch.path().join("cli.tfrc");
    registry.write_cli_config(&cli_config);
    let dir = terraform::module_dir(&[("main.tf", MAIN_TF)], &registry.host());
    let out = tfsum::run(
        dir.path(),
        &cli_config,
        scratch.path(),
        &["lock", "--platform=windows_arm64", "."],
    );
    assert_eq!(out.status.code(), Some(1), "{}", tfsum::text(&out));
    let text = tfsum::text(&out);
    assert!(
        text.contains("hashicorp/null v3.2.1 is not available for windows_arm64"),
        "{text}"
    );
    assert!(!dir.path().join(".terraform.lock.hcl").exists(), "{text}");
}
