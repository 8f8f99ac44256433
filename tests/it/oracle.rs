//! Proof that the oracle works: real Terraform v1.0.3 runs `providers lock` against the fake
//! registry, accepts its signatures and zips, and records the hashes the fake predicts
//! (`h1:` from the independent dirhash, `zh:` from SHA256SUMS). Conformance tests comparing
//! tfsum with Terraform build on exactly this setup.

use std::path::Path;

use crate::support::fake_registry::{FakeRegistry, RegistryHandle, UrlStyle};
use crate::support::go_zip::ZipStyle;
use crate::support::terraform;

/// One `provider` block of a lock file, as far as these tests look at it.
#[derive(Debug, PartialEq, Eq)]
struct LockedProvider {
    address: String,
    version: String,
    constraints: Option<String>,
    hashes: Vec<String>,
}

/// A small reader for the layout spec §1.4 describes; enough to check the oracle's output
/// structurally without depending on tfsum's own lock-file parser.
fn parse_lock_file(text: &str) -> Vec<LockedProvider> {
    let mut providers = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let Some(rest) = line.strip_prefix("provider \"") else {
            continue;
        };
        let address = rest
            .strip_suffix("\" {")
            .expect("provider block header")
            .to_owned();
        let mut provider = LockedProvider {
            address,
            version: String::new(),
            constraints: None,
            hashes: Vec::new(),
        };
        for line in lines.by_ref() {
            let line = line.trim();
            if line == "}" {
                break;
            }
            if line == "hashes = [" || line == "]" {
                continue;
            }
            if let Some(hash) = line.strip_prefix('"') {
                let hash = hash.strip_suffix("\",").expect("hash line is \"…\",");
                provider.hashes.push(hash.to_owned());
            } else if let Some((key, value)) = line.split_once('=') {
                let value = value.trim().trim_matches('"').to_owned();
                match key.trim() {
                    "version" => provider.version = value,
                    "constraints" => provider.constraints = Some(value),
                    other => panic!("unexpected attribute {other} in lock file:\n{text}"),
                }
            } else {
                panic!("unexpected line {line:?} in lock file:\n{text}");
            }
        }
        providers.push(provider);
    }
    providers
}

/// What Terraform should record for (namespace, type, version) on `platforms` (spec §9):
/// one `h1:` per platform plus every SHA256SUMS line as `zh:`, sorted.
fn expected_hashes(
    registry: &RegistryHandle,
    (namespace, type_, version): (&str, &str, &str),
    platforms: &[&str],
) -> Vec<String> {
    let mut hashes: Vec<String> = platforms
        .iter()
        .map(|p| registry.expected_h1(namespace, type_, version, p))
        .collect();
    hashes.extend(registry.expected_zh(namespace, type_, version));
    hashes.sort();
    hashes.dedup();
    hashes
}

/// `terraform { required_providers { … } }` for (local name, namespace, type, constraint).
fn required_providers(registry: &RegistryHandle, providers: &[(&str, &str, &str, &str)]) -> String {
    let mut tf = String::from("terraform {\n  required_providers {\n");
    for (local, namespace, type_, constraint) in providers {
        tf.push_str(&format!(
            "    {local} = {{\n      source  = \"{}\"\n      version = \"{constraint}\"\n    }}\n",
            registry.source(namespace, type_)
        ));
    }
    tf.push_str("  }\n}\n");
    tf
}

/// Runs `terraform providers lock` for `main_tf` and returns the module dir and lock file.
fn lock_with_terraform(
    registry: &RegistryHandle,
    main_tf: &str,
    platforms: &[&str],
) -> (tempfile::TempDir, String) {
    let dir = terraform::module_dir(&[("main.tf", main_tf)], &registry.host());
    let cli_config = dir.path().join("terraform.tfrc");
    registry.write_cli_config(&cli_config);
    let output = terraform::providers_lock(dir.path(), platforms, &cli_config);
    terraform::assert_success(&output, "terraform providers lock");
    let lock = terraform::read_lock_file(dir.path());
    (dir, lock)
}

fn assert_locked(
    lock: &str,
    registry: &RegistryHandle,
    expected: &[((&str, &str, &str), &str)],
    platforms: &[&str],
) {
    let parsed = parse_lock_file(lock);
    let wanted: Vec<LockedProvider> = expected
        .iter()
        .map(
            |&((namespace, type_, version), constraint)| LockedProvider {
                address: registry.source(namespace, type_),
                version: version.to_owned(),
                constraints: Some(constraint.to_owned()),
                hashes: expected_hashes(registry, (namespace, type_, version), platforms),
            },
        )
        .collect();
    pretty_assertions::assert_eq!(parsed, wanted, "lock file:\n{lock}");
    for provider in &parsed {
        let mut sorted = provider.hashes.clone();
        sorted.sort();
        assert_eq!(provider.hashes, sorted, "hashes are written sorted");
    }
}

#[test]
fn terraform_locks_one_provider_on_one_platform() {
    let registry = FakeRegistry::builder()
        .provider("hashicorp", "null")
        .version("3.2.1")
        .version("3.2.0")
        .start();
    let main_tf = required_providers(&registry, &[("null", "hashicorp", "null", "~> 3.2.0")]);
    let (_dir, lock) = lock_with_terraform(&registry, &main_tf, &["linux_amd64"]);

    assert!(lock.starts_with(
        "# This file is maintained automatically by \"terraform init\".\n\
         # Manual edits may be lost in future updates.\n\n"
    ));
    assert_locked(
        &lock,
        &registry,
        &[(("hashicorp", "null", "3.2.1"), "~> 3.2.0")],
        &["linux_amd64"],
    );
    // One zip per platform, SHA256SUMS and its signature once each; 3.2.0 never fetched.
    assert_eq!(registry.count("_linux_amd64.zip"), 1);
    assert_eq!(registry.count("_3.2.1_SHA256SUMS"), 1);
    assert_eq!(registry.count("_3.2.1_SHA256SUMS.sig"), 1);
    assert_eq!(registry.count("3.2.0_linux_amd64.zip"), 0);
}

#[test]
fn terraform_locks_three_providers_on_three_platforms() {
    let platforms = ["linux_amd64", "darwin_arm64", "windows_amd64"];
    let mut builder = FakeRegistry::builder();
    for (namespace, type_, version) in [
        ("hashicorp", "null", "3.2.1"),
        ("hashicorp", "random", "3.6.0"),
        ("acme", "widget", "0.4.2"),
    ] {
        builder = builder
            .provider(namespace, type_)
            .version(version)
            .platforms(&platforms);
    }
    let registry = builder.start();
    let main_tf = required_providers(
        &registry,
        &[
            ("null", "hashicorp", "null", "3.2.1"),
            ("random", "hashicorp", "random", ">= 3.0.0"),
            ("widget", "acme", "widget", "~> 0.4"),
        ],
    );
    let (_dir, lock) = lock_with_terraform(&registry, &main_tf, &platforms);
    // Blocks sorted by address: acme before hashicorp.
    assert_locked(
        &lock,
        &registry,
        &[
            (("acme", "widget", "0.4.2"), "~> 0.4"),
            (("hashicorp", "null", "3.2.1"), "3.2.1"),
            (("hashicorp", "random", "3.6.0"), ">= 3.0.0"),
        ],
        &platforms,
    );
    assert_eq!(registry.count(".zip"), 9, "each zip downloaded once");
    let zip_requests: Vec<_> = registry
        .requests()
        .into_iter()
        .filter(|r| r.path.starts_with("/files/"))
        .collect();
    assert!(zip_requests
        .iter()
        .all(|r| r.header("authorization").is_none()));
}

#[test]
fn terraform_hashes_every_file_of_a_package() {
    let registry = FakeRegistry::builder()
        .provider("acme", "widget")
        .version("1.0.0")
        .platforms(&["linux_amd64", "darwin_amd64"])
        .binary()
        .file("LICENSE", "Licensed for tfsum tests only.\n")
        .start();
    let main_tf = required_providers(&registry, &[("widget", "acme", "widget", "1.0.0")]);
    let platforms = ["linux_amd64", "darwin_amd64"];
    let (_dir, lock) = lock_with_terraform(&registry, &main_tf, &platforms);
    assert_locked(
        &lock,
        &registry,
        &[(("acme", "widget", "1.0.0"), "1.0.0")],
        &platforms,
    );
    assert_eq!(
        registry
            .package_files("acme", "widget", "1.0.0", "linux_amd64")
            .len(),
        2
    );
}

/// Terraform resolves relative URLs and unpacks both zip layouts alike.
#[test]
fn terraform_accepts_relative_urls_and_sized_zips() {
    for (style, zip_style) in [
        (UrlStyle::RootRelative, ZipStyle::Sized),
        (UrlStyle::PathRelative, ZipStyle::DataDescriptor),
    ] {
        let registry = FakeRegistry::builder()
            .url_style(style)
            .provider("hashicorp", "null")
            .version("3.2.1")
            .zip_style(zip_style)
            .start();
        let main_tf = required_providers(&registry, &[("null", "hashicorp", "null", "3.2.1")]);
        let (_dir, lock) = lock_with_terraform(&registry, &main_tf, &["linux_amd64"]);
        assert_locked(
            &lock,
            &registry,
            &[(("hashicorp", "null", "3.2.1"), "3.2.1")],
            &["linux_amd64"],
        );
    }
}

#[test]
fn terraform_sends_the_configured_token_to_the_api_only() {
    let registry = FakeRegistry::builder()
        .provider("hashicorp", "null")
        .version("3.2.1")
        .start();
    registry.require_token(Some("tfsum-test-token"));
    let main_tf = required_providers(&registry, &[("null", "hashicorp", "null", "3.2.1")]);
    let dir = terraform::module_dir(&[("main.tf", &main_tf)], &registry.host());
    let cli_config = dir.path().join("terraform.tfrc");

    registry.write_cli_config(&cli_config);
    let output = terraform::providers_lock(dir.path(), &["linux_amd64"], &cli_config);
    assert!(!output.status.success(), "no token, no lock");

    registry.reset_counts();
    registry.write_cli_config_with_token(&cli_config, "tfsum-test-token");
    let output = terraform::providers_lock(dir.path(), &["linux_amd64"], &cli_config);
    terraform::assert_success(&output, "providers lock with a token");
    for request in registry.requests() {
        let auth = request.header("authorization");
        if request.path.starts_with("/v1/") {
            assert_eq!(auth, Some("Bearer tfsum-test-token"), "{}", request.path);
        } else {
            assert_eq!(auth, None, "{}", request.path);
        }
    }
}

/// Terraform refuses every content fault the fake can inject, and writes no lock file.
#[test]
fn terraform_rejects_content_faults() {
    type Inject = fn(&RegistryHandle);
    let cases: [(&str, Inject, &str); 4] = [
        (
            "bad signature",
            |r| r.bad_signature("hashicorp", "null", "3.2.1"),
            "error checking signature",
        ),
        (
            "corrupt zip",
            |r| r.corrupt_zip("hashicorp", "null", "3.2.1", "linux_amd64"),
            "archive has incorrect checksum",
        ),
        (
            "shasum mismatch",
            |r| r.shasum_mismatch("hashicorp", "null", "3.2.1", "linux_amd64"),
            "checksum list has unexpected SHA-256 hash",
        ),
        (
            "missing platform",
            |r| r.remove_platform("hashicorp", "null", "3.2.1", "linux_amd64"),
            "3.2.1 is not available for linux_amd64",
        ),
    ];
    let registry = FakeRegistry::builder()
        .provider("hashicorp", "null")
        .version("3.2.1")
        .start();
    let main_tf = required_providers(&registry, &[("null", "hashicorp", "null", "3.2.1")]);
    let dir = terraform::module_dir(&[("main.tf", &main_tf)], &registry.host());
    let cli_config = dir.path().join("terraform.tfrc");
    registry.write_cli_config(&cli_config);
    for (name, inject, message) in cases {
        registry.clear_faults();
        inject(&registry);
        let output = terraform::providers_lock(dir.path(), &["linux_amd64"], &cli_config);
        let text = terraform::combined_output(&output);
        assert!(
            !output.status.success(),
            "{name}: Terraform succeeded:\n{text}"
        );
        // Terraform wraps its messages; compare with the line breaks removed.
        let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            flat.contains(message),
            "{name}: expected {message:?} in:\n{text}"
        );
        assert!(!dir.path().join(".terraform.lock.hcl").exists(), "{name}");
    }
}

#[test]
fn terraform_init_writes_the_same_hashes_for_the_host_platform() {
    let registry = FakeRegistry::builder()
        .provider("hashicorp", "null")
        .version("3.2.1")
        .platforms(&["linux_amd64", "darwin_arm64"])
        .start();
    let main_tf = required_providers(&registry, &[("null", "hashicorp", "null", "3.2.1")]);
    let dir = terraform::module_dir(&[("main.tf", &main_tf)], &registry.host());
    let cli_config = dir.path().join("terraform.tfrc");
    registry.write_cli_config(&cli_config);
    let output = terraform::init_backend_false(dir.path(), &cli_config);
    terraform::assert_success(&output, "terraform init");
    let lock = terraform::read_lock_file(dir.path());
    assert_locked(
        &lock,
        &registry,
        &[(("hashicorp", "null", "3.2.1"), "3.2.1")],
        &["linux_amd64"],
    );
    assert!(Path::new(&dir.path().join(".terraform/providers")).is_dir());
}

/// Version selection ignores `protocols`: Terraform 1.0.3 picks the newest matching version
/// even when its download JSON declares only protocol 4, and then fails on it instead of
/// falling back to an older, compatible version (spec §5.3, `ErrProtocolNotSupported`).
/// tfsum refuses the same version on the same configuration, before downloading
/// anything, and names the protocols the version offers.
#[test]
fn an_incompatible_newest_version_is_refused_by_both_tools() {
    let registry = FakeRegistry::builder()
        .provider("hashicorp", "null")
        .version("3.2.0")
        .version("3.2.1")
        .protocols(&["4.0"])
        .start();
    let main_tf = required_providers(&registry, &[("null", "hashicorp", "null", ">= 3.0.0")]);
    let dir = terraform::module_dir(&[("main.tf", &main_tf)], &registry.host());
    let cli_config = dir.path().join("terraform.tfrc");
    registry.write_cli_config(&cli_config);

    let output = terraform::providers_lock(dir.path(), &["linux_amd64"], &cli_config);
    let text = terraform::combined_output(&output);
    assert!(!output.status.success(), "{text}");
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("3.2.1 is not supported by this version of terraform"),
        "{text}"
    );
    assert_eq!(registry.count("/3.2.0/download/linux/amd64"), 0);
    assert!(!dir.path().join(".terraform.lock.hcl").exists());

    registry.reset_counts();
    let scratch = tempfile::TempDir::new().unwrap();
    let out = crate::tfsum::run(
        dir.path(),
        &cli_config,
        scratch.path(),
        &["lock", "--platform=linux_amd64", "."],
    );
    let text = crate::tfsum::text(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("3.2.1"), "{text}");
    assert!(text.contains("plugin protocols 4.0 only"), "{text}");
    assert_eq!(registry.count(".zip"), 0, "{text}");
    assert!(!dir.path().join(".terraform.lock.hcl").exists());
}
