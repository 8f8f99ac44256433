//! Resolution over whole repositories (issue 3): tfsum, run once with `-r` over a fixture
//! repository from `testdata/repos/`, must leave in every root the lock file that
//! Terraform v1.0.3 writes when run in that root, and none anywhere else.
//!
//! The oracle gets its own copy of the whole repository (relative module paths must
//! work) and, per root, runs `terraform get` (it reads even local child modules through
//! its module manifest) and `terraform providers lock`. Lock file life-cycle cases that
//! `providers lock` does not cover — pruning, a first lock file, `-upgrade` — are
//! compared with `terraform init -backend=false`, which records only the current
//! platform's `h1:`, so tfsum runs for `linux_amd64` only there.
//!
//! Implied providers live on `registry.terraform.io`; the CLI configuration both tools
//! read points that host, too, at the fake registry.

use std::path::Path;

use pretty_assertions::assert_eq;

use crate::support::fake_registry::FakeRegistry;
use crate::support::terraform;
use crate::tfsum;
use crate::twin::Twin;

/// The platforms every repository case locks.
pub const PLATFORMS: &[&str] = &["linux_amd64", "darwin_arm64"];

/// The platform `terraform init` runs on here (the oracle binary is linux_amd64).
const INIT_PLATFORM: &str = "linux_amd64";

/// Versions chosen so that each constraint style picks something other than "newest":
/// a prerelease newest for null and widget, a `!=`-excluded newest for aws.
pub fn registry() -> FakeRegistry {
    let mut builder = FakeRegistry::builder();
    let providers: &[(&str, &str, &[&str])] = &[
        (
            "hashicorp",
            "null",
            &["3.0.0", "3.1.0", "3.1.1", "3.2.1", "3.3.0-beta1"],
        ),
        ("hashicorp", "random", &["3.4.3", "3.5.1", "3.6.0"]),
        (
            "hashicorp",
            "aws",
            &["4.67.0", "5.30.0", "5.31.0", "5.32.0"],
        ),
        ("hashicorp", "tls", &["4.0.4", "4.0.5"]),
        ("hashicorp", "local", &["2.4.0", "2.5.1"]),
        (
            "acme",
            "widget",
            &["1.0.0", "1.1.0", "2.0.0-beta.2", "2.0.0-beta.10"],
        ),
    ];
    for (namespace, type_, versions) in providers {
        builder = builder.provider(namespace, type_);
        for version in *versions {
            builder = builder.version(version).platforms(PLATFORMS);
        }
    }
    builder.start()
}

/// The `provider "ADDR" { … }` block of `lock`, for focused assertions.
pub fn provider_block<'a>(lock: &'a str, addr: &str) -> &'a str {
    let start = lock
        .find(&format!("provider \"{addr}\" {{"))
        .unwrap_or_else(|| panic!("no block for {addr} in:\n{lock}"));
    let len = lock[start..]
        .find("\n}\n")
        .map_or(lock.len() - start, |i| i + 3);
    &lock[start..start + len]
}

/// The provider addresses and versions of a lock file, in file order.
pub fn providers_and_versions(lock: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut current = None;
    for line in lock.lines() {
        if let Some(rest) = line.strip_prefix("provider \"") {
            current = rest.split('"').next().map(str::to_string);
        } else if let Some(rest) = line.trim().strip_prefix("version") {
            let version = rest.trim_start_matches([' ', '=']).trim_matches('"');
            if let Some(addr) = current.take() {
                out.push((addr, version.to_string()));
            }
        }
    }
    out
}

// ---- whole repositories against `terraform providers lock` -----------------------------

const MONO_ROOTS: &[&str] = &[
    "envs/dev/app",
    "envs/dev/sandbox",
    "envs/prod/app",
    "envs/stage/app",
    "platform/dns",
];

#[test]
fn monorepo_every_root_matches_terraform() {
    let registry = registry();
    let repo = Twin::fixture(&registry, "repos/mono");
    let out = repo.tfsum_lock_all(PLATFORMS);
    tfsum::assert_ok(&out);

    // Roots and only roots: modules/app, modules/network and modules/network/subnet are
    // called by others and have no backend, so they get nothing.
    assert_eq!(repo.locked_dirs(), MONO_ROOTS, "{}", tfsum::text(&out));

    let mut locks = Vec::new();
    for root in MONO_ROOTS {
        locks.push(repo.assert_root_matches(root, PLATFORMS));
    }
    let [dev, sandbox, prod, stage, dns] = &locks[..] else {
        unreachable!()
    };
    let host = registry.host();
    let fake = |name: &str| format!("{host}/hashicorp/{name}");
    let public = |name: &str| format!("registry.terraform.io/hashicorp/{name}");

    // random is declared only in modules/network (two levels down); tls only implied by a
    // resource in modules/network/subnet. Both reach every env root.
    for lock in [dev, prod, stage] {
        let random = provider_block(lock, &fake("random"));
        let tls = provider_block(lock, &public("tls"));
        assert!(!tls.contains("constraints"), "{lock}");
        assert!(tls.contains("version = \"4.0.5\""), "{tls}");
        assert!(random.contains("constraints = \">= 3.0.0"), "{random}");
    }
    let expect = |lock: &str, addr: &str, version: &str, constraints: &str| {
        let block = provider_block(lock, addr);
        assert!(
            block.contains(&format!("version     = \"{version}\"")),
            "{addr}: want {version}:\n{block}"
        );
        assert!(
            block.contains(&format!("constraints = \"{constraints}\"")),
            "{addr}: want {constraints:?}:\n{block}"
        );
    };
    expect(prod, &fake("random"), "3.6.0", ">= 3.0.0, < 4.0.0");
    expect(prod, &fake("aws"), "5.30.0", ">= 5.0.0, 5.30.0, != 5.32.0");
    expect(prod, &fake("null"), "3.2.1", "~> 3.1");
    // The override's pin replaced main.tf's "~> 3.2" (not added to it).
    expect(stage, &fake("null"), "3.1.1", "~> 3.1, 3.1.1");
    expect(
        stage,
        &fake("aws"),
        "5.31.0",
        ">= 5.0.0, ~> 5.31.0, != 5.32.0",
    );
    // platform/dns pins random for envs/dev/app too.
    expect(dev, &fake("random"), "3.5.1", ">= 3.0.0, 3.5.1, < 4.0.0");
    expect(dev, &fake("local"), "2.5.1", "~> 2.4");
    expect(dns, &fake("random"), "3.5.1", "3.5.1");
    // Implied providers, a legacy provider-block version and a source-less override.
    expect(sandbox, &public("tls"), "4.0.4", "< 4.0.5");
    expect(sandbox, &public("local"), "2.5.1", "~> 2.4");
    assert!(!sandbox.contains(&fake("local")), "{sandbox}");
    let random = provider_block(sandbox, &public("random"));
    assert!(!random.contains("constraints"), "{random}");

    // A second run finds every lock file up to date and leaves the bytes alone.
    let again = repo.tfsum_lock_all(PLATFORMS);
    let text = tfsum::text(&again);
    assert!(
        again.status.success() && text.contains("5 unchanged"),
        "{text}"
    );
    for (root, lock) in MONO_ROOTS.iter().zip(&locks) {
        assert_eq!(&repo.tfsum_lock_file(root), lock);
    }
}

#[test]
fn prerelease_roots_match_terraform() {
    let registry = registry();
    let repo = Twin::fixture(&registry, "repos/prerelease");
    let out = repo.tfsum_lock_all(PLATFORMS);
    tfsum::assert_ok(&out);
    let roots = ["exact", "exact-with-range", "range"];
    assert_eq!(repo.locked_dirs(), roots, "{}", tfsum::text(&out));
    let versions: Vec<String> = roots
        .iter()
        .map(|root| {
            let lock = repo.assert_root_matches(root, PLATFORMS);
            providers_and_versions(&lock)[0].1.clone()
        })
        .collect();
    assert_eq!(versions, ["2.0.0-beta.2", "2.0.0-beta.10", "1.1.0"]);
}

#[test]
fn edge_case_roots_match_terraform() {
    let registry = registry();
    let repo = Twin::fixture(&registry, "repos/edge");
    let out = repo.tfsum_lock_all(PLATFORMS);
    tfsum::assert_ok(&out);
    let roots = [
        "json-provider",
        "meta-arg",
        "override-json",
        "spelling",
        "tofu-child",
    ];
    assert_eq!(repo.locked_dirs(), roots, "{}", tfsum::text(&out));
    let locks: Vec<String> = roots
        .iter()
        .map(|root| repo.assert_root_matches(root, PLATFORMS))
        .collect();
    let host = registry.host();
    let versions: Vec<Vec<(String, String)>> =
        locks.iter().map(|l| providers_and_versions(l)).collect();
    let pair = |addr: String, v: &str| (addr, v.to_string());
    assert_eq!(
        versions,
        [
            vec![
                pair(format!("{host}/hashicorp/aws"), "5.30.0"),
                pair("registry.terraform.io/hashicorp/tls".into(), "4.0.5"),
            ],
            vec![
                pair(format!("{host}/hashicorp/null"), "3.1.0"),
                pair("registry.terraform.io/hashicorp/null".into(), "3.2.1"),
            ],
            vec![
                pair(format!("{host}/hashicorp/aws"), "4.67.0"),
                pair(format!("{host}/hashicorp/null"), "3.2.1"),
                pair(format!("{host}/hashicorp/tls"), "4.0.4"),
            ],
            vec![pair(format!("{host}/hashicorp/random"), "3.5.1")],
            // child/ holds only main.tofu: empty to Terraform, so no random.
            vec![pair(format!("{host}/hashicorp/null"), "3.2.1")],
        ]
    );
}

/// The oracle cannot read `.tofu` files: its copy has each `X.tofu` renamed to `X.tf`
/// (replacing the `X.tf` that OpenTofu ignores), and its lock file differs from tfsum's
/// only in the header's tool name.
#[test]
fn tofu_root_matches_terraform_on_the_equivalent_tf_files() {
    let registry = registry();
    let repo = Twin::fixture(&registry, "repos/tofu");
    tofu_to_tf(repo.terraform_dir());
    let out = repo.tfsum_lock_all(PLATFORMS);
    tfsum::assert_ok(&out);
    assert_eq!(repo.locked_dirs(), ["stack"], "{}", tfsum::text(&out));

    let out = repo.terraform_lock("stack", &[], PLATFORMS);
    terraform::assert_success(&out, "terraform providers lock in stack");
    let want =
        repo.terraform_lock_file("stack")
            .replacen("by \"terraform init\"", "by \"tofu init\"", 1);
    let got = repo.tfsum_lock_file("stack");
    assert_eq!(got, want, "tfsum (left) vs Terraform (right)");
    let host = registry.host();
    assert_eq!(
        providers_and_versions(&got),
        [
            (format!("{host}/hashicorp/aws"), "5.32.0".to_string()),
            (format!("{host}/hashicorp/null"), "3.1.1".to_string()),
            (format!("{host}/hashicorp/random"), "3.6.0".to_string()),
        ]
    );
}

/// Renames every `X.tofu`/`X.tofu.json` below `dir` to `X.tf`/`X.tf.json`.
fn tofu_to_tf(dir: &Path) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if path.is_dir() {
            tofu_to_tf(&path);
        } else if let Some(stem) = name.strip_suffix(".tofu") {
            std::fs::rename(&path, dir.join(format!("{stem}.tf"))).unwrap();
        } else if let Some(stem) = name.strip_suffix(".tofu.json") {
            std::fs::rename(&path, dir.join(format!("{stem}.tf.json"))).unwrap();
        }
    }
}

#[test]
fn no_acceptable_version_fails_that_root_only() {
    let registry = registry();
    let repo = Twin::fixture(&registry, "repos/conflict");
    let out = repo.tfsum_lock_all(PLATFORMS);
    let text = tfsum::text(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    for needle in [
        "\"~> 3.2\" declared at ",
        "bad/main.tf:5",
        "\"< 3.2.0\" declared at ",
        "bad/legacy/main.tf:5",
        "3.2.1",
        "3.1.1",
    ] {
        assert!(text.contains(needle), "missing {needle:?} in:\n{text}");
    }
    assert_eq!(repo.locked_dirs(), ["good"], "{text}");
    repo.assert_root_matches("good", PLATFORMS);
    // Terraform agrees that nothing fits.
    let out = repo.terraform_lock("bad", &[], PLATFORMS);
    assert!(
        !out.status.success(),
        "{}",
        terraform::combined_output(&out)
    );
}

// ---- lock file life cycle against `terraform init -backend=false` ---------------------

/// `terraform providers lock` in the module's top directory, which must succeed.
fn providers_lock(module: &Twin, platforms: &[&str]) -> String {
    let out = module.terraform_lock(".", &[], platforms);
    terraform::assert_success(&out, "terraform providers lock");
    module.terraform_lock_file(".")
}

const TWO_PROVIDERS: &str = r#"terraform {
  required_providers {
    null   = { source = "{{REGISTRY}}/hashicorp/null", version = "~> 3.1" }
    random = { source = "{{REGISTRY}}/hashicorp/random", version = ">= 3.5.0" }
  }
}

module "child" {
  source = "./child"
}
"#;

const CHILD_WITH_IMPLIED: &str = r#"resource "tls_private_key" "k" {
  algorithm = "ED25519"
}
"#;

#[test]
fn new_lock_file_matches_init() {
    let registry = registry();
    let module = Twin::new(
        &registry,
        &[
            ("main.tf", TWO_PROVIDERS),
            ("child/main.tf", CHILD_WITH_IMPLIED),
        ],
    );
    let want = module.init(".", false);
    let got = module.tfsum_lock(".", &[], &[INIT_PLATFORM]);
    assert_eq!(got, want, "tfsum (left) vs terraform init (right)");
}

/// Pruning: tfsum drops lock entries for providers the configuration no longer requires,
/// as `terraform init` does since v1.1 (hashicorp/terraform#30192, "providercache:
/// Discard lock entries for unused providers"). The oracle, v1.0.3, predates that and
/// keeps them, so the comparison is with its output minus exactly those entries; every
/// byte of the remaining entries must match. The starting lock file holds two platforms'
/// hashes, which `init` keeps for the still-required provider because its version does
/// not change; tfsum merges the same way.
#[test]
fn pruning_matches_init() {
    let registry = registry();
    let module = Twin::new(
        &registry,
        &[
            ("main.tf", TWO_PROVIDERS),
            ("child/main.tf", CHILD_WITH_IMPLIED),
        ],
    );
    let before = providers_lock(&module, PLATFORMS);
    assert_eq!(providers_and_versions(&before).len(), 3, "{before}");
    module.with_lock(".", &before);
    // random is no longer required; the child module (and with it tls) is gone.
    module.write(
        "main.tf",
        r#"terraform {
  required_providers {
    null = { source = "{{REGISTRY}}/hashicorp/null", version = "~> 3.1" }
  }
}
"#,
    );
    let init = module.init(".", false);
    let host = registry.host();
    let unused = [
        format!("{host}/hashicorp/random"),
        "registry.terraform.io/hashicorp/tls".to_string(),
    ];
    // v1.0.3 keeps them, unchanged: if a newer oracle prunes, this line says so.
    for addr in &unused {
        assert_eq!(provider_block(&init, addr), provider_block(&before, addr));
    }
    let want = unused
        .iter()
        .fold(init.clone(), |lock, addr| without_block(&lock, addr));
    let got = module.tfsum_lock(".", &[], &[INIT_PLATFORM]);
    assert_eq!(got, want, "tfsum (left) vs pruned terraform init (right)");
    assert_eq!(
        providers_and_versions(&got),
        [(format!("{host}/hashicorp/null"), "3.2.1".to_string())]
    );
}

/// `lock` without the block of `addr` and the blank line before it.
fn without_block(lock: &str, addr: &str) -> String {
    let block = provider_block(lock, addr);
    lock.replacen(&format!("\n{block}"), "", 1)
}

/// A locked version that still satisfies the constraints is kept (as `providers lock`
/// keeps it) and moved to the newest allowed one by `--upgrade` (as `init -upgrade`).
#[test]
fn upgrade_moves_a_still_acceptable_locked_version() {
    let registry = registry();
    let pinned = r#"terraform {
  required_providers {
    null = { source = "{{REGISTRY}}/hashicorp/null", version = "3.1.0" }
  }
}
"#;
    let module = Twin::new(&registry, &[("main.tf", pinned)]);
    let locked = providers_lock(&module, &[INIT_PLATFORM]);
    module.with_lock(".", &locked);
    module.write("main.tf", &pinned.replace("\"3.1.0\"", "\"~> 3.1\""));

    let want = providers_lock(&module, &[INIT_PLATFORM]);
    let got = module.tfsum_lock(".", &[], &[INIT_PLATFORM]);
    assert_eq!(got, want, "kept: tfsum (left) vs providers lock (right)");
    assert_eq!(providers_and_versions(&got)[0].1, "3.1.0");

    let want = module.init(".", true);
    let got = module.tfsum_lock(".", &["--upgrade"], &[INIT_PLATFORM]);
    assert_eq!(got, want, "upgraded: tfsum (left) vs init -upgrade (right)");
    assert_eq!(providers_and_versions(&got)[0].1, "3.2.1");
}

/// A locked version the constraints no longer allow. `terraform init` refuses ("locked
/// provider … does not match configured version constraint …; must use terraform init
/// -upgrade"); tfsum, by design (issue 3, docs/design.md "resolve"), chooses the newest allowed
/// version without being asked, which is what `init -upgrade` writes. Each case: the
/// constraint the lock was made with, the new one, the version both must then choose.
#[test]
fn locked_version_no_longer_allowed_moves_like_init_upgrade() {
    let registry = registry();
    let cases = [
        ("hashicorp/null", "3.1.0", "version = \"~> 3.2\"", "3.2.1"),
        (
            "hashicorp/null",
            "3.2.1",
            "version = \"< 3.2.0, != 3.1.1\"",
            "3.1.0",
        ),
        // A locked prerelease is not allowed by an empty constraint set (spec §4.4).
        ("acme/widget", "2.0.0-beta.2", "", "1.1.0"),
    ];
    for (source, locked, constraint, want_version) in cases {
        let name = source.split('/').next_back().unwrap_or(source);
        let config = |version: &str| {
            format!(
                "terraform {{\n  required_providers {{\n    {name} = {{\n      source  = \"{{{{REGISTRY}}}}/{source}\"\n      {version}\n    }}\n  }}\n}}\n"
            )
        };
        let module = Twin::new(
            &registry,
            &[("main.tf", &config(&format!("version = \"{locked}\"")))],
        );
        let lock = providers_lock(&module, &[INIT_PLATFORM]);
        module.with_lock(".", &lock);
        module.write("main.tf", &config(constraint));

        let refused = module.terraform(
            ".",
            &["init", "-backend=false", "-input=false", "-no-color"],
        );
        let text = terraform::combined_output(&refused);
        assert!(!refused.status.success(), "{name} {constraint}: {text}");
        assert!(text.contains("does not match configured version"), "{text}");

        let want = module.init(".", true);
        let got = module.tfsum_lock(".", &[], &[INIT_PLATFORM]);
        assert_eq!(
            got, want,
            "{name} {constraint}: tfsum (left) vs init -upgrade (right)"
        );
        assert_eq!(providers_and_versions(&got)[0].1, want_version, "{got}");
    }
}
