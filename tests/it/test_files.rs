//! Test files (`docs/spec/tests.md`): the providers that only `*.tftest.hcl` files use are
//! locked, as `terraform init` (≥ 1.6.0) and `terraform providers lock` (≥ 1.14.1) lock
//! them, unless the root's `required_version` pins a release that never reads test files.
//!
//! Terraform ≥ 1.14.1 is not available offline, so "what it writes" is Terraform 1.0.3's
//! lock file for the same module tree with the run block's module called from
//! `main.tf` instead: the same providers and constraints, rendered by the same rules.
//! Where 1.0.3's behaviour applies (a root pinned below 1.6.0) tfsum must write exactly
//! what 1.0.3 writes for the very same files.

use std::path::Path;

use pretty_assertions::assert_eq;
use tempfile::TempDir;

use crate::harness;
use crate::support::fake_registry::FakeRegistry;
use crate::support::terraform;
use crate::tfsum;

const PLATFORM: &str = "linux_amd64";

/// `tfsum lock --platform=linux_amd64 .` in `dir`, which must succeed; the lock file.
fn tfsum_lock(dir: &Path, cli_config: &Path) -> String {
    let scratch = TempDir::new().unwrap();
    let out = tfsum::run(
        dir,
        cli_config,
        scratch.path(),
        &["lock", &format!("--platform={PLATFORM}"), "."],
    );
    tfsum::assert_ok(&out);
    terraform::read_lock_file(dir)
}

/// Terraform 1.0.3's `get`, then `providers lock -platform=linux_amd64`, for `files`
/// (Terraform loads even local modules through its module manifest).
fn terraform_lock(files: &[(&str, &str)], host: &str, cli_config: &Path) -> String {
    let dir = terraform::module_dir(files, host);
    let out = terraform::run(dir.path(), cli_config, &["get", "-no-color"]);
    terraform::assert_success(&out, "terraform get");
    let out = terraform::providers_lock(dir.path(), &[PLATFORM], cli_config);
    terraform::assert_success(&out, "terraform providers lock");
    terraform::read_lock_file(dir.path())
}

const RUN_HELPER: &str = r#"run "setup" {
  module {
    source = "./helper"
  }
}

run "check" {
  assert {
    condition     = true
    error_message = "unreachable"
  }
}
"#;

const CALL_HELPER: &str = "\nmodule \"helper\" {\n  source = \"./helper\"\n}\n";

const PIN_1_0: &str = "terraform {\n  required_version = \"~> 1.0.0\"\n}\n";

/// A root whose only use of `random` is the module a `.tftest.hcl` run block calls:
/// locked as if `main.tf` called that module, and not locked (byte for byte what
/// Terraform 1.0.3 writes for the same files) once the root pins Terraform 1.0.
#[test]
fn a_provider_only_a_test_file_uses_is_locked_unless_pinned_below_1_6() {
    let registry = harness::registry();
    let scratch = TempDir::new().unwrap();
    let cli_config = scratch.path().join("cli.tfrc");
    registry.write_cli_config(&cli_config);
    let host = registry.host();
    let main_tf = harness::main_tf(&[("null", "~> 3.2")]);
    let helper_tf = harness::main_tf(&[("random", "3.6.0")]);

    let with_tests = [
        ("main.tf", main_tf.as_str()),
        ("main.tftest.hcl", RUN_HELPER),
        ("helper/main.tf", helper_tf.as_str()),
    ];
    let dir = terraform::module_dir(&with_tests, &host);
    let got = tfsum_lock(dir.path(), &cli_config);
    let main_calls_helper = main_tf.clone() + CALL_HELPER;
    let want = terraform_lock(
        &[
            ("main.tf", main_calls_helper.as_str()),
            ("helper/main.tf", helper_tf.as_str()),
        ],
        &host,
        &cli_config,
    );
    assert_eq!(
        got, want,
        "tfsum (left) vs the same tree called from main.tf"
    );
    assert!(got.contains("/hashicorp/random\""), "{got}");

    // Pinned to 1.0.x: the test file does not count, and the existing lock loses random
    // as `init` would prune it.
    std::fs::write(dir.path().join("versions.tf"), PIN_1_0).unwrap();
    let got = tfsum_lock(dir.path(), &cli_config);
    let pinned = [
        ("main.tf", main_tf.as_str()),
        ("versions.tf", PIN_1_0),
        ("main.tftest.hcl", RUN_HELPER),
        ("helper/main.tf", helper_tf.as_str()),
    ];
    let want = terraform_lock(&pinned, &host, &cli_config);
    assert_eq!(got, want, "tfsum (left) vs Terraform 1.0.3 (right)");
    assert!(!got.contains("/hashicorp/random\""), "{got}");
}

/// A test file in `tests/` whose run block calls a local module under `tests/`, which
/// calls another: the whole tree counts, its constraints merged with the root's, and
/// local sources resolve from the root directory, not from `tests/`.
#[test]
fn a_run_block_in_the_tests_directory_calls_a_local_module_tree() {
    let registry = harness::registry();
    let scratch = TempDir::new().unwrap();
    let cli_config = scratch.path().join("cli.tfrc");
    registry.write_cli_config(&cli_config);
    let host = registry.host();
    let main_tf = harness::main_tf(&[("null", "~> 3.2")]);
    let fixture_tf = harness::main_tf(&[("random", "~> 3.6")])
        + "\nmodule \"inner\" {\n  source = \"../inner\"\n}\n";
    let inner_tf = harness::main_tf(&[("random", "3.6.0"), ("null", "3.2.0")]);
    let test = "run \"fixture\" {\n  module {\n    source = \"./tests/fixture\"\n  }\n}\n";

    let dir = terraform::module_dir(
        &[
            ("main.tf", &main_tf),
            ("tests/integration.tftest.hcl", test),
            ("tests/fixture/main.tf", &fixture_tf),
            ("tests/inner/main.tf", &inner_tf),
        ],
        &host,
    );
    let got = tfsum_lock(dir.path(), &cli_config);
    let main_calls_fixture =
        main_tf.clone() + "\nmodule \"fixture\" {\n  source = \"./tests/fixture\"\n}\n";
    let want = terraform_lock(
        &[
            ("main.tf", &main_calls_fixture),
            ("tests/fixture/main.tf", &fixture_tf),
            ("tests/inner/main.tf", &inner_tf),
        ],
        &host,
        &cli_config,
    );
    assert_eq!(
        got, want,
        "tfsum (left) vs the same tree called from main.tf"
    );
    assert!(
        got.contains("3.2.0"),
        "null is held to the inner module's 3.2.0: {got}"
    );
}

/// A `provider` block in a `tests/` file: OpenTofu counts it (mapped to the default
/// registry, as OpenTofu maps a name the root does not declare); Terraform does not.
#[test]
fn a_provider_block_in_a_tests_directory_file_counts_for_opentofu_only() {
    let registry = FakeRegistry::builder()
        .provider("hashicorp", "null")
        .version("3.2.1")
        .platforms(&[PLATFORM])
        .provider("hashicorp", "random")
        .version("3.6.0")
        .platforms(&[PLATFORM])
        .start();
    let scratch = TempDir::new().unwrap();
    let cli_config = scratch.path().join("cli.tfrc");
    // `registry.opentofu.org` is served by the fake too, so `hashicorp/random` resolves.
    std::fs::write(
        &cli_config,
        format!(
            "host \"registry.opentofu.org\" {{\n  services = {{\n    \"providers.v1\" = \"{}\"\n  }}\n}}\n{}",
            registry.providers_url(),
            registry.cli_config()
        ),
    )
    .unwrap();
    let main = harness::main_tf(&[("null", "~> 3.2")]);
    let test =
        "provider \"random\" {\n  version = \"~> 3.0\"\n}\n\nrun \"plan\" {\n  command = plan\n}\n";

    let tofu = terraform::module_dir(
        &[("main.tofu", &main), ("tests/providers.tftest.hcl", test)],
        &registry.host(),
    );
    let lock = tfsum_lock(tofu.path(), &cli_config);
    assert!(
        lock.starts_with("# This file is maintained automatically by \"tofu init\"."),
        "{lock}"
    );
    assert!(
        lock.contains("provider \"registry.opentofu.org/hashicorp/random\" {\n  version     = \"3.6.0\"\n  constraints = \"~> 3.0\""),
        "{lock}"
    );
    assert!(lock.contains("/hashicorp/null\""), "{lock}");

    let terraform_root = terraform::module_dir(
        &[("main.tf", &main), ("tests/providers.tftest.hcl", test)],
        &registry.host(),
    );
    let lock = tfsum_lock(terraform_root.path(), &cli_config);
    assert!(!lock.contains("random"), "{lock}");
    assert!(lock.contains("/hashicorp/null\""), "{lock}");
}

/// With `-r`, a helper module that only a run block calls is a called module like any
/// other: it gets no lock file of its own, and the root's lock file holds its providers.
#[test]
fn a_helper_only_a_run_block_calls_is_not_a_root() {
    let registry = harness::registry();
    let test = "run \"setup\" {\n  module {\n    source = \"./tests/setup\"\n  }\n}\n";
    let repo = harness::Repo::new(
        &registry,
        &[
            ("app/main.tf", &harness::main_tf(&[("null", "~> 3.2")])),
            ("app/tests/main.tftest.hcl", test),
            (
                "app/tests/setup/main.tf",
                &harness::main_tf(&[("random", "3.6.0")]),
            ),
        ],
    );
    let out = repo.lock_all(&[PLATFORM], &[], &[]);
    assert!(out.status.success(), "{}", harness::text(&out));
    assert_eq!(crate::twin::lock_dirs(repo.path()), ["app"]);
    let lock = repo.lock("app").unwrap();
    assert!(lock.contains("/hashicorp/random\""), "{lock}");
}
