//! Mirrors against the oracle: for the same configuration, `tfsum lock --fs-mirror` /
//! `--net-mirror` and Terraform v1.0.3's `providers lock -fs-mirror` / `-net-mirror` must
//! leave byte-identical lock files (spec §5.5, §6, §7). The providers live on
//! `registry.terraform.io`, which neither tool may contact: a mirror replaces the
//! registry entirely.
//!
//! Terraform requires https for `-net-mirror`, so the fake serves TLS with the test CA,
//! which both tools are told about through `SSL_CERT_FILE`.

use std::path::Path;

use pretty_assertions::assert_eq;
use tempfile::TempDir;

use crate::support::fake_registry::{test_ca_path, FakeRegistry, RegistryHandle};
use crate::support::terraform;
use crate::tfsum;
use crate::twin::Twin;

const PLATFORMS: &[&str] = &["linux_amd64", "darwin_arm64", "windows_amd64"];

/// `hashicorp/null` (one binary) and `hashicorp/random` (binary, LICENSE and a file in a
/// subdirectory), three platforms each.
fn packages(tls: bool) -> FakeRegistry {
    let builder = FakeRegistry::builder()
        .provider("hashicorp", "null")
        .version("3.1.0")
        .platforms(PLATFORMS)
        .version("3.2.1")
        .platforms(PLATFORMS)
        .provider("hashicorp", "random")
        .version("3.6.0")
        .platforms(PLATFORMS)
        .binary()
        .file("LICENSE", "MPL-2.0\n")
        .file("docs/README.md", "# random\n");
    if tls {
        builder.tls().start()
    } else {
        builder.start()
    }
}

const CONFIG: &str = r#"terraform {
  required_providers {
    null   = { source = "hashicorp/null", version = "~> 3.1" }
    random = { source = "hashicorp/random" }
  }
}
"#;

/// The configuration, with the test CA trusted, for both tools.
fn twin(cli: &str) -> Twin {
    let ca = test_ca_path();
    Twin::with_cli_config(&[("main.tf", CONFIG)], cli).env("SSL_CERT_FILE", &ca.to_string_lossy())
}

/// `terraform providers lock -platform=… <tf_flag>` vs `tfsum lock --platform=…
/// <tfsum_flag> .`; returns the (identical) lock file.
fn assert_same(case: &Twin, tf_flag: &str, tfsum_flag: &str) -> String {
    let out = case.terraform_lock(".", &[tf_flag], PLATFORMS);
    terraform::assert_success(&out, "terraform providers lock");
    let want = case.terraform_lock_file(".");
    let got = case.tfsum_lock(".", &[tfsum_flag], PLATFORMS);
    assert_eq!(got, want, "tfsum (left) vs Terraform (right)");
    got
}

fn write(base: &Path, rel: &str, content: &[u8]) {
    let path = base.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, content).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}

/// A filesystem mirror of the fake's packages: `null` packed, `random` unpacked (under a
/// differently cased namespace directory, which both tools fold), plus entries both
/// must skip.
fn build_fs_mirror(registry: &RegistryHandle, dir: &Path) {
    for version in ["3.1.0", "3.2.1"] {
        for p in PLATFORMS {
            let name = registry.zip_filename("hashicorp", "null", version, p);
            let zip = registry.zip("hashicorp", "null", version, p);
            write(
                dir,
                &format!("registry.terraform.io/hashicorp/null/{name}"),
                &zip,
            );
        }
    }
    for p in PLATFORMS {
        for (name, content) in registry.package_files("hashicorp", "random", "3.6.0", p) {
            let rel = format!("registry.terraform.io/HashiCorp/random/3.6.0/{p}/{name}");
            write(dir, &rel, &content);
        }
    }
    write(
        dir,
        "registry.terraform.io/hashicorp/null/README.md",
        b"not a package",
    );
    write(
        dir,
        "registry.terraform.io/hashicorp/null/9.9.9/linux-amd64/x",
        b"bad platform",
    );
}

#[test]
fn fs_mirror_both_layouts_match_terraform() {
    let registry = packages(false);
    let mirror = TempDir::new().unwrap();
    build_fs_mirror(&registry, mirror.path());
    let case = twin("");
    let flag = mirror.path().display().to_string();
    let lock = assert_same(
        &case,
        &format!("-fs-mirror={flag}"),
        &format!("--fs-mirror={flag}"),
    );
    // h1: only, one per platform and provider.
    assert_eq!(lock.matches("\"h1:").count(), 2 * PLATFORMS.len(), "{lock}");
    assert!(!lock.contains("zh:"), "{lock}");
    assert_eq!(
        registry.requests().len(),
        0,
        "no tool may contact a registry"
    );
}

#[test]
fn net_mirror_matches_terraform() {
    let registry = packages(true);
    // Mirror JSON needs the token configured for the mirror's host; archives do not.
    registry.require_token(Some("mirror-token"));
    let cli = format!(
        "credentials \"{}\" {{\n  token = \"mirror-token\"\n}}\n",
        registry.host()
    );
    let case = twin(&cli);
    let url = registry.mirror_url();
    let lock = assert_same(
        &case,
        &format!("-net-mirror={url}"),
        &format!("--net-mirror={url}"),
    );
    assert_eq!(lock.matches("\"h1:").count(), 2 * PLATFORMS.len(), "{lock}");
    assert!(!lock.contains("zh:"), "{lock}");
    for request in registry.requests() {
        let json = request.path.ends_with(".json");
        assert!(
            request
                .path
                .starts_with("/mirror/registry.terraform.io/hashicorp/"),
            "{}",
            request.path
        );
        assert_eq!(
            request.header("authorization").is_some(),
            json,
            "{} {:?}",
            request.path,
            request.headers
        );
    }
}

/// A net mirror whose archive does not match its own `h1:` fails the root and names
/// the URL, and http is refused.
#[test]
fn net_mirror_refuses_bad_packages_and_http() {
    let registry = packages(true);
    registry.corrupt_zip("hashicorp", "null", "3.2.1", "darwin_arm64");
    let case = twin("");
    let url = registry.mirror_url();
    let out = case.tfsum(&[
        "lock",
        "--platform=darwin_arm64",
        &format!("--net-mirror={url}"),
        ".",
    ]);
    let text = tfsum::text(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("terraform-provider-null_3.2.1_darwin_arm64.zip"),
        "{text}"
    );
    assert!(!case.tfsum_dir().join(".terraform.lock.hcl").exists());

    let http = url.replace("https://", "http://");
    let out = case.tfsum(&["lock", &format!("--net-mirror={http}"), "."]);
    let text = tfsum::text(&out);
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(text.contains("must start with https://"), "{text}");

    let out = case.tfsum(&[
        "lock",
        "--net-mirror=https://x.example/",
        "--fs-mirror=.",
        ".",
    ]);
    let text = tfsum::text(&out);
    assert_eq!(out.status.code(), Some(2), "{text}");
    // Terraform's -fs-mirror and -net-mirror exclude each other too (spec §9).
    assert!(
        text.contains("'--net-mirror <URL>' cannot be used with '--fs-mirror <DIR>'"),
        "{text}"
    );
}

/// The offline demo (`make demo`): every root of `testdata/demo/roots` locked from
/// `testdata/demo/mirror` in one tfsum run gives what Terraform gives per root.
#[test]
fn demo_matches_terraform() {
    let demo = terraform::repo_root().join("testdata/demo");
    let mirror = demo.join("mirror");
    let copy = terraform::conformance_dir("demo/roots", "");
    let scratch = TempDir::new().unwrap();
    let cli = scratch.path().join("cli.tfrc");
    std::fs::write(&cli, "").unwrap();
    let out = tfsum::run(
        copy.path(),
        &cli,
        scratch.path(),
        &[
            "lock",
            "-r",
            "--fs-mirror",
            mirror.to_str().unwrap(),
            "--platform",
            "linux_amd64",
            "--platform",
            "darwin_arm64",
            ".",
        ],
    );
    tfsum::assert_ok(&out);
    let roots = ["network", "app"];
    for root in roots {
        let tf_copy = terraform::conformance_dir(&format!("demo/roots/{root}"), "");
        let out = terraform::run(
            tf_copy.path(),
            &cli,
            &[
                "providers",
                "lock",
                "-no-color",
                "-platform=linux_amd64",
                "-platform=darwin_arm64",
                &format!("-fs-mirror={}", mirror.display()),
            ],
        );
        terraform::assert_success(&out, "terraform providers lock");
        assert_eq!(
            terraform::read_lock_file(&copy.path().join(root)),
            terraform::read_lock_file(tf_copy.path()),
            "{root}: tfsum (left) vs Terraform (right)"
        );
    }
}

/// `tfsum mirror` takes packages from the mirrors `lock` takes them from: a network
/// mirror's archives (checked against its hashes) and a filesystem mirror's zips, each
/// checked against the lock file's `h1:` before it is placed; no registry is contacted.
#[test]
fn tfsum_mirror_copies_from_mirrors() {
    let registry = packages(true);
    let case = twin("");
    let url = format!("--net-mirror={}", registry.mirror_url());
    case.tfsum_lock(".", &[&url], &["linux_amd64"]);
    let want = |ty: &str, v: &str| registry.expected_h1("hashicorp", ty, v, "linux_amd64");
    let check = |dir: &Path, which: &[(&str, &str)]| {
        for (ty, v) in which {
            let entry = dir
                .join("registry.terraform.io/hashicorp")
                .join(ty)
                .join(v)
                .join("linux_amd64");
            let files: Vec<(String, Vec<u8>)> = crate::harness::snapshot(&entry)
                .into_iter()
                .filter(|(name, _)| !name.ends_with('/'))
                .collect();
            assert_eq!(crate::support::dirhash::h1(&files), want(ty, v), "{ty}");
        }
    };

    let from_net = TempDir::new().unwrap();
    let dir = from_net.path().to_string_lossy().into_owned();
    let out = case.tfsum(&["mirror", &url, "--platform=linux_amd64", &dir, "."]);
    tfsum::assert_ok(&out);
    check(from_net.path(), &[("null", "3.2.1"), ("random", "3.6.0")]);

    let packed = TempDir::new().unwrap();
    build_fs_mirror(&registry, packed.path());
    let fs = format!("--fs-mirror={}", packed.path().display());
    let from_fs = TempDir::new().unwrap();
    let dir = from_fs.path().to_string_lossy().into_owned();
    let out = case.tfsum(&["mirror", &fs, "--platform=linux_amd64", &dir, "."]);
    // `random` is there unpacked only: said, not guessed.
    assert_eq!(out.status.code(), Some(1), "{}", tfsum::text(&out));
    let text = tfsum::text(&out);
    assert!(
        text.contains("random 3.6.0 linux_amd64") && text.contains("copies zips only"),
        "{text}"
    );
    check(from_fs.path(), &[("null", "3.2.1")]);
    assert!(registry
        .requests()
        .iter()
        .all(|r| r.path.starts_with("/mirror/")));
}
