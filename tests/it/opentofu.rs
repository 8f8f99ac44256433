//! OpenTofu's `packages` map (spec §10): when the registry's download document lists
//! every platform's `h1:`/`zh:`, one download per (provider, version), verified against
//! the map, stands for all platforms, and the lock file is the same as when every
//! platform is downloaded.

use std::collections::BTreeMap;

use pretty_assertions::assert_eq;
use tempfile::TempDir;

use crate::support::fake_registry::FakeRegistry;
use crate::support::terraform;
use crate::tfsum;

const PLATFORMS: &[&str] = &[
    "linux_amd64",
    "darwin_arm64",
    "darwin_amd64",
    "windows_amd64",
];

/// Locks a fresh OpenTofu root (a `.tofu` file) for every platform with an empty cache;
/// returns the lock file, how many zips were downloaded, and how many new `h1:` the
/// change report attributes to each source.
fn lock(registry: &FakeRegistry) -> (String, usize, BTreeMap<String, usize>) {
    let config = format!(
        "terraform {{\n  required_providers {{\n    null   = {{ source = \"{}\", version = \"~> 3.0\" }}\n    random = {{ source = \"{}\" }}\n  }}\n}}\n",
        registry.source("hashicorp", "null"),
        registry.source("hashicorp", "random"),
    );
    let root = terraform::module_dir(&[("main.tofu", &config)], "");
    let scratch = TempDir::new().unwrap();
    let cli = scratch.path().join("cli.tfrc");
    registry.write_cli_config(&cli);
    registry.reset_counts();
    let platforms = format!("--platform={}", PLATFORMS.join(","));
    let out = tfsum::run(
        root.path(),
        &cli,
        scratch.path(),
        &["lock", &platforms, "--format=json", "."],
    );
    tfsum::assert_ok(&out);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON report");
    let mut sources = BTreeMap::new();
    for change in report["roots"][0]["changes"].as_array().expect("changes") {
        for hash in change["hashes"].as_array().into_iter().flatten() {
            if hash["hash"].as_str().is_some_and(|h| h.starts_with("h1:")) {
                let source = hash["source"].as_str().unwrap_or("").to_string();
                *sources.entry(source).or_default() += 1;
            }
        }
    }
    (
        terraform::read_lock_file(root.path()),
        registry.count(".zip"),
        sources,
    )
}

#[test]
fn packages_map_means_one_download_per_version() {
    let registry = FakeRegistry::builder()
        .provider("hashicorp", "null")
        .version("3.2.1")
        .platforms(PLATFORMS)
        .provider("hashicorp", "random")
        .version("3.6.0")
        .platforms(PLATFORMS)
        .binary()
        .file("LICENSE", "MPL-2.0\n")
        .start();

    let (all_downloads, downloads, sources) = lock(&registry);
    assert_eq!(downloads, 2 * PLATFORMS.len());
    assert_eq!(sources, BTreeMap::from([("download".to_string(), 8)]));

    registry.set_packages_map(true);
    let (from_map, downloads, sources) = lock(&registry);
    assert_eq!(downloads, 2, "one package per (provider, version)");
    // The change report says which h1: came from the map and which from the download.
    assert_eq!(
        sources,
        BTreeMap::from([("download".to_string(), 2), ("packages_map".to_string(), 6)])
    );
    assert_eq!(from_map, all_downloads);
    assert!(from_map.starts_with("# This file is maintained automatically by \"tofu init\"."));
    assert_eq!(
        from_map.matches("\"h1:").count(),
        2 * PLATFORMS.len(),
        "{from_map}"
    );
}

/// OpenTofu's registry lists no signing key for some providers, and OpenTofu then takes
/// its checksums without a signature check (spec §10). tfsum does the same for
/// `registry.opentofu.org` only: any other host without keys still fails.
#[test]
fn opentofu_registry_without_signing_keys() {
    let registry = FakeRegistry::builder()
        .provider("hashicorp", "null")
        .version("3.2.1")
        .platforms(&["linux_amd64"])
        .start();
    registry.set_no_signing_keys(true);
    let scratch = TempDir::new().unwrap();
    let cli = scratch.path().join("cli.tfrc");
    std::fs::write(
        &cli,
        format!(
            "host \"registry.opentofu.org\" {{\n  services = {{\n    \"providers.v1\" = \"{}\"\n  }}\n}}\n{}",
            registry.providers_url(),
            registry.cli_config()
        ),
    )
    .unwrap();

    // A .tofu root: the short source means registry.opentofu.org/hashicorp/null.
    let tofu = terraform::module_dir(
        &[(
            "main.tofu",
            "terraform {\n  required_providers {\n    null = { source = \"hashicorp/null\", version = \"3.2.1\" }\n  }\n}\n",
        )],
        "",
    );
    let out = tfsum::run(
        tofu.path(),
        &cli,
        scratch.path(),
        &["lock", "--platform=linux_amd64", "."],
    );
    tfsum::assert_ok(&out);
    let lock = terraform::read_lock_file(tofu.path());
    assert!(
        lock.starts_with("# This file is maintained automatically by \"tofu init\"."),
        "{lock}"
    );
    assert!(
        lock.contains("provider \"registry.opentofu.org/hashicorp/null\""),
        "{lock}"
    );
    let mut want = vec![registry.expected_h1("hashicorp", "null", "3.2.1", "linux_amd64")];
    want.extend(registry.expected_zh("hashicorp", "null", "3.2.1"));
    for hash in want {
        assert!(lock.contains(&hash), "{hash} missing from\n{lock}");
    }

    // The same registry under its own host name: no key, no lock.
    let other = terraform::module_dir(
        &[(
            "main.tf",
            &format!(
                "terraform {{\n  required_providers {{\n    null = {{ source = \"{}\" }}\n  }}\n}}\n",
                registry.source("hashicorp", "null")
            ),
        )],
        "",
    );
    let out = tfsum::run(
        other.path(),
        &cli,
        scratch.path(),
        &["lock", "--platform=linux_amd64", "."],
    );
    assert_eq!(out.status.code(), Some(1), "{}", tfsum::text(&out));
    assert!(!other.path().join(".terraform.lock.hcl").exists());
}
