//! Terraform Stacks (HCP Terraform, `*.tfcomponent.hcl`) through the `tfsum` binary: a
//! stack gets one lock file, in the form `terraform stacks providers-lock` writes
//! (Terraform's format, the stacks header, no `constraints`), holding its
//! `required_providers`; the modules its components source get none. HashiCorp's own
//! example (`testdata/terraform-stacks/pet-nulls-stack`) is locked and compared with
//! Terraform 1.0.3's `providers lock` for a twin root of the same `required_providers`.

use std::path::{Path, PathBuf};

use tempfile::TempDir;

use crate::support::fake_registry::FakeRegistry;
use crate::support::terraform;
use crate::tfsum;

pub(super) const PLATFORMS: [&str; 2] = ["darwin_arm64", "linux_amd64"];

pub(super) const STACKS_HEADER: &str = "# This file is maintained automatically by \"terraform stacks providers-lock\".\n# Manual edits may be lost in future updates.\n";
const INIT_HEADER: &str = "# This file is maintained automatically by \"terraform init\".\n# Manual edits may be lost in future updates.\n";

fn registry() -> FakeRegistry {
    let mut builder = FakeRegistry::builder();
    for (name, versions) in [
        ("random", &["3.3.2", "3.5.1", "3.6.0"][..]),
        ("null", &["3.1.1", "3.2.2", "3.2.4", "3.3.0"][..]),
        ("aws", &["5.0.0"][..]),
    ] {
        builder = builder.provider("hashicorp", name);
        for version in versions {
            builder = builder.version(version).platforms(&PLATFORMS);
        }
    }
    builder.start()
}

/// A CLI configuration that sends `registry.terraform.io` to the fake registry, with
/// `extra` (another registry's `host` block) after it.
fn cli_config(registry: &FakeRegistry, extra: &str, dir: &Path) -> PathBuf {
    let path = dir.join("cli.tfrc");
    let text = format!(
        "{}host \"registry.terraform.io\" {{\n  services = {{\n    \"providers.v1\" = \"{}\"\n  }}\n}}\n{extra}",
        registry.cli_config(),
        registry.providers_url()
    );
    std::fs::write(&path, text).expect("cli config");
    path
}

fn copy_tree(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from) {
        let entry = entry.expect("walk");
        let target = to.join(entry.path().strip_prefix(from).expect("inside"));
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).expect("mkdir");
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

/// A repository (it has `.git`) in a temporary directory.
pub(crate) struct Work {
    dir: TempDir,
    pub(crate) scratch: TempDir,
    pub(crate) cli: PathBuf,
}

impl Work {
    fn new(registry: &FakeRegistry) -> Work {
        Work::with_cli(registry, "")
    }

    /// A repository whose CLI configuration also holds `extra` (a module registry's
    /// `host` block).
    pub(crate) fn with_cli(registry: &FakeRegistry, extra: &str) -> Work {
        let dir = TempDir::new().expect("work");
        std::fs::create_dir(dir.path().join(".git")).expect(".git");
        let scratch = TempDir::new().expect("scratch");
        let cli = cli_config(registry, extra, scratch.path());
        Work { dir, scratch, cli }
    }

    pub(crate) fn path(&self) -> &Path {
        self.dir.path()
    }

    pub(crate) fn write(&self, rel: &str, text: &str) {
        let path = self.path().join(rel);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }

    pub(crate) fn read(&self, rel: &str) -> Option<String> {
        std::fs::read_to_string(self.path().join(rel)).ok()
    }

    pub(crate) fn tfsum(&self, args: &[&str]) -> std::process::Output {
        tfsum::run(self.path(), &self.cli, self.scratch.path(), args)
    }

    /// `tfsum ARGS --platform=…` for both test platforms.
    pub(crate) fn with_platforms(&self, args: &[&str]) -> std::process::Output {
        let mut all: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        all.extend(PLATFORMS.iter().map(|p| format!("--platform={p}")));
        let all: Vec<&str> = all.iter().map(String::as_str).collect();
        self.tfsum(&all)
    }

    /// `tfsum lock EXTRA --platform=…` for both test platforms.
    fn lock(&self, extra: &[&str]) -> std::process::Output {
        let mut args = vec!["lock"];
        args.extend(extra);
        self.with_platforms(&args)
    }
}

/// What Terraform 1.0.3's `providers lock` writes for a root requiring `providers`
/// (`(name, source, constraint)`), made into a stack's file: the stacks header, and no
/// `constraints` lines. Real stack lock files have exactly this form
/// (`testdata/terraform-stacks/pet-nulls-stack/.terraform.lock.hcl`).
pub(super) fn twin_lock(
    registry: &FakeRegistry,
    cli: &Path,
    providers: &[(&str, &str, &str)],
) -> String {
    let twin = TempDir::new().expect("twin");
    let entries: String = providers
        .iter()
        .map(|(name, source, version)| {
            format!("    {name} = {{\n      source  = \"{source}\"\n      version = \"{version}\"\n    }}\n")
        })
        .collect();
    std::fs::write(
        twin.path().join("main.tf"),
        format!("terraform {{\n  required_providers {{\n{entries}  }}\n}}\n"),
    )
    .expect("twin main.tf");
    let _ = registry;
    let out = terraform::providers_lock(twin.path(), &PLATFORMS, cli);
    terraform::assert_success(&out, "terraform providers lock in the twin root");
    let lock = terraform::read_lock_file(twin.path());
    let body = lock.strip_prefix(INIT_HEADER).expect("init header");
    let body: String = body
        .lines()
        .filter(|line| !line.trim_start().starts_with("constraints"))
        .map(|line| {
            // `version` was aligned with `constraints`.
            let line = line.replace("version     =", "version =");
            format!("{line}\n")
        })
        .collect();
    format!("{STACKS_HEADER}{body}")
}

/// HashiCorp's pet-nulls example: `tfsum lock -r` writes the stack's lock file, equal to
/// Terraform's for the twin root in the stacks form, and none in `pet/` or `nulls/`,
/// whose own pins (random 3.3.2, null 3.1.1) the stack does not apply: each gets a
/// warning instead. A second run changes nothing; `tfsum lock` in the stack directory
/// alone does the same; `--check` passes.
#[test]
fn pet_nulls_stack_locks_like_the_stacks_plugin() {
    let registry = registry();
    let work = Work::new(&registry);
    let example = terraform::repo_root().join("testdata/terraform-stacks/pet-nulls-stack");
    copy_tree(&example, work.path());
    std::fs::remove_file(work.path().join(".terraform.lock.hcl")).expect("old lock");

    let out = work.lock(&["-r", "."]);
    assert_eq!(out.status.code(), Some(0), "{}", tfsum::text(&out));
    let got = work
        .read(".terraform.lock.hcl")
        .expect("the stack's lock file");
    let want = twin_lock(
        &registry,
        &work.cli,
        &[
            ("random", "hashicorp/random", "~> 3.5.1"),
            ("null", "hashicorp/null", "~> 3.2.2"),
        ],
    );
    pretty_assertions::assert_eq!(got, want, "tfsum (left) vs Terraform 1.0.3's twin (right)");
    assert!(got.contains("version = \"3.5.1\""), "{got}");
    assert!(got.contains("version = \"3.2.4\""), "{got}");
    assert!(work.read("pet/.terraform.lock.hcl").is_none());
    assert!(work.read("nulls/.terraform.lock.hcl").is_none());
    let text = tfsum::text(&out);
    assert!(text.contains("(terraform stack)"), "{text}");
    for (component, module, provider, version) in [
        (
            "component \"pet\"",
            "\"3.3.2\"",
            "hashicorp/random",
            "3.5.1",
        ),
        (
            "component \"nulls\"",
            "\"3.1.1\"",
            "hashicorp/null",
            "3.2.4",
        ),
    ] {
        let line = text
            .lines()
            .find(|l| l.contains(component) && l.contains("excludes"))
            .unwrap_or_else(|| panic!("no warning for {component}:\n{text}"));
        assert!(line.contains(module), "{line}");
        assert!(line.contains(&format!("{provider} {version}")), "{line}");
        assert!(line.contains("components.tfcomponent.hcl:"), "{line}");
    }

    let again = work.lock(&["-r", "."]);
    assert_eq!(again.status.code(), Some(0), "{}", tfsum::text(&again));
    assert_eq!(
        work.read(".terraform.lock.hcl").as_deref(),
        Some(got.as_str())
    );
    let check = work.lock(&["--check", "-r", "."]);
    assert_eq!(check.status.code(), Some(0), "{}", tfsum::text(&check));
    std::fs::remove_file(work.path().join(".terraform.lock.hcl")).expect("remove");
    let here = work.lock(&["."]);
    assert_eq!(here.status.code(), Some(0), "{}", tfsum::text(&here));
    assert_eq!(
        work.read(".terraform.lock.hcl").as_deref(),
        Some(got.as_str())
    );
}

/// `required_providers` of a stack, one entry per `(name, constraint)` of `hashicorp/`.
fn required(providers: &[(&str, &str)]) -> String {
    let entries: String = providers
        .iter()
        .map(|(name, version)| {
            format!("  {name} = {{\n    source  = \"hashicorp/{name}\"\n    version = \"{version}\"\n  }}\n")
        })
        .collect();
    format!("required_providers {{\n{entries}}}\n")
}

/// A module using `hashicorp/NAME` through one resource, pinning `pin` when given.
fn module(name: &str, pin: Option<&str>) -> String {
    let pinned = pin
        .map(|v| {
            format!("terraform {{\n  required_providers {{\n    {name} = {{\n      source  = \"hashicorp/{name}\"\n      version = \"{v}\"\n    }}\n  }}\n}}\n")
        })
        .unwrap_or_default();
    format!("{pinned}resource \"{name}_thing\" \"this\" {{}}\n")
}

/// A component block passing `provider.NAME.this` as `NAME`.
fn component(label: &str, source: &str, providers: &[&str]) -> String {
    let map: String = providers
        .iter()
        .map(|p| format!("    {p} = provider.{p}.this\n"))
        .collect();
    format!("component \"{label}\" {{\n  source = \"{source}\"\n  providers = {{\n{map}  }}\n}}\n")
}

fn provider_blocks(names: &[&str]) -> String {
    names
        .iter()
        .map(|n| format!("provider \"{n}\" \"this\" {{}}\n"))
        .collect()
}

/// What HCP Terraform refuses at plan, tfsum refuses at commit, stack by stack: a
/// module's provider missing from `required_providers`, a provider the root module
/// uses but the component does not pass, a configuration of another provider passed
/// for a module's implied `hashicorp/NAME`, a module that configures a provider itself,
/// and bad input (a malformed file, a provider without `source`, a local source
/// leaving the repository, legacy and current names mixed, a directory named like a
/// stack file). Each names the stack's file and line (and the component, module and
/// provider where there is one), writes nothing, and stops only its stack: the good
/// stack beside them is locked.
#[test]
fn what_hcp_refuses_fails_its_stack_alone() {
    let registry = registry();
    let work = Work::new(&registry);
    work.write(
        "good/stack.tfcomponent.hcl",
        &format!(
            "{}{}{}",
            required(&[("null", "~> 3.2")]),
            provider_blocks(&["null"]),
            component("app", "../modules/null", &["null"])
        ),
    );
    work.write("modules/null/main.tf", &module("null", None));
    work.write(
        "modules/both/main.tf",
        &format!("{}{}", module("null", None), module("random", None)),
    );
    work.write(
        "modules/other/main.tf",
        "terraform {\n  required_providers {\n    null = {\n      source = \"acme/null\"\n    }\n  }\n}\nresource \"null_thing\" \"x\" {}\n",
    );
    work.write(
        "modules/configures/main.tf",
        "provider \"null\" {}\nresource \"null_thing\" \"x\" {}\n",
    );
    let stack = |body: String| {
        format!(
            "{}{}{body}",
            required(&[("null", "~> 3.2")]),
            provider_blocks(&["null"])
        )
    };
    let cases: Vec<(&str, String, Vec<&str>)> = vec![
        (
            "missing-provider",
            stack(component("app", "../modules/both", &["null"])),
            vec![
                "stack.tfcomponent.hcl:8: component \"app\": the module needs registry.terraform.io/hashicorp/random",
                "Provider missing from lockfile",
            ],
        ),
        (
            "not-passed",
            stack("component \"app\" {\n  source = \"../modules/null\"\n}\n".to_string()),
            vec![
                "stack.tfcomponent.hcl:8: component \"app\": the module (",
                "modules/null/main.tf) uses provider \"null\"",
                "Missing required provider configuration",
            ],
        ),
        (
            "wrong-type",
            format!(
                "{}{}{}",
                "required_providers {\n  null = {\n    source  = \"hashicorp/null\"\n    version = \"~> 3.2\"\n  }\n  acme = {\n    source  = \"acme/null\"\n    version = \"1.0.0\"\n  }\n}\n",
                provider_blocks(&["null", "acme"]),
                "component \"app\" {\n  source = \"../modules/null\"\n  providers = {\n    null = provider.acme.this\n  }\n}\n"
            ),
            vec![
                "stack.tfcomponent.hcl:16: component \"app\": the module (",
                "wants a configuration of registry.terraform.io/hashicorp/null for \"null\", and provider.acme is one of registry.terraform.io/acme/null",
                "Invalid provider configuration",
                "does not declare \"null\" in its required_providers",
            ],
        ),
        (
            "inline-provider",
            stack(component("app", "../modules/configures", &["null"])),
            vec!["Inline provider configuration not allowed", "modules/configures/main.tf:1"],
        ),
        (
            "malformed",
            "required_providers {\n".to_string(),
            vec!["stack.tfcomponent.hcl:1:22: syntax error"],
        ),
        (
            "no-source",
            "required_providers {\n  null = {\n    version = \"~> 3.2\"\n  }\n}\n".to_string(),
            vec!["stack.tfcomponent.hcl:2: required_providers entry \"null\" has no source"],
        ),
        (
            "outside",
            stack(component("app", "../../../elsewhere", &["null"])),
            vec!["stack.tfcomponent.hcl:9: component \"app\": source \"../../../elsewhere\" leads out of"],
        ),
    ];
    for (dir, text, _) in &cases {
        work.write(&format!("{dir}/stack.tfcomponent.hcl"), text);
    }
    work.write("mixed/a.tfstack.hcl", "");
    work.write("mixed/b.tfcomponent.hcl", "");
    std::fs::create_dir_all(work.path().join("directory/x.tfcomponent.hcl")).expect("mkdir");
    let out = work.lock(&["-r", "."]);
    assert_eq!(out.status.code(), Some(1), "{}", tfsum::text(&out));
    let text = tfsum::text(&out);
    assert!(work.read("good/.terraform.lock.hcl").is_some(), "{text}");
    let mut wanted: Vec<(&str, Vec<&str>)> =
        cases.iter().map(|(d, _, w)| (*d, w.clone())).collect();
    wanted.push(("mixed", vec!["a.tfstack.hcl:1: the stack mixes legacy"]));
    wanted.push(("directory", vec!["x.tfcomponent.hcl:1: is a directory"]));
    for (dir, wants) in wanted {
        assert!(
            work.read(&format!("{dir}/.terraform.lock.hcl")).is_none(),
            "{dir} got a lock file"
        );
        let report = crate::harness::root_report(&out, dir);
        assert!(report.starts_with("failed"), "{dir}: {report}\n{text}");
        for want in wants {
            assert!(report.contains(want), "{dir}: wants {want:?} in\n{report}");
        }
    }
    for dir in [
        "modules/null",
        "modules/both",
        "modules/other",
        "modules/configures",
    ] {
        assert!(
            work.read(&format!("{dir}/.terraform.lock.hcl")).is_none(),
            "{dir}"
        );
    }
}

/// A stack kept in order over time:
/// - its directory still holds the `.tf` files of the root it was migrated from: no
///   `terraform init` lock file is made from them, the stack's is, and a warning says so;
/// - a component's module keeps a lock file of its own: reported as unused, untouched;
/// - an embedded stack (local) adds its `required_providers`, and is no root itself;
/// - with no platform given, the lock holds `linux_amd64` (HCP Terraform's) beside this
///   machine's;
/// - an old lock file with the init header and `constraints` is rewritten in the stacks
///   form, keeping a version that still meets the constraint;
/// - a provider no stack requires any more is dropped, a locked version outside the
///   constraint fails `--check` (HCP's "doesn't match the lockfile") and is moved by
///   `lock`.
#[test]
fn a_stack_kept_in_order() {
    let registry = registry();
    let work = Work::new(&registry);
    work.write(
        "stack/components.tfcomponent.hcl",
        &format!(
            "{}{}{}stack \"net\" {{\n  source = \"../net\"\n}}\n",
            required(&[("null", "~> 3.2.2")]),
            provider_blocks(&["null"]),
            component("app", "../modules/app", &["null"])
        ),
    );
    work.write("stack/main.tf", &module("aws", Some("5.0.0")));
    work.write(
        "stack/deployments.tfdeploy.hcl",
        "deployment \"prod\" {\n  inputs = {}\n}\n",
    );
    work.write("stack/.terraform-version", "1.14.3\n");
    work.write(
        "net/net.tfcomponent.hcl",
        &required(&[("random", "~> 3.5")]),
    );
    work.write("modules/app/main.tf", &module("null", None));
    let unused = "# kept by hand\n";
    work.write("modules/app/.terraform.lock.hcl", unused);
    work.write(
        "stack/.terraform.lock.hcl",
        &format!(
            "{INIT_HEADER}\nprovider \"registry.terraform.io/hashicorp/aws\" {{\n  version = \"5.0.0\"\n}}\n\nprovider \"registry.terraform.io/hashicorp/null\" {{\n  version     = \"3.2.2\"\n  constraints = \"~> 3.2.2\"\n}}\n"
        ),
    );

    let out = work.tfsum(&["lock", "-r", "."]);
    assert_eq!(out.status.code(), Some(0), "{}", tfsum::text(&out));
    let text = tfsum::text(&out);
    let lock = work.read("stack/.terraform.lock.hcl").expect("stack lock");
    assert!(lock.starts_with(STACKS_HEADER), "{lock}");
    assert!(!lock.contains("constraints"), "{lock}");
    assert!(
        !lock.contains("hashicorp/aws"),
        "the .tf files' provider: {lock}"
    );
    assert!(
        lock.contains("provider \"registry.terraform.io/hashicorp/null\" {\n  version = \"3.2.2\""),
        "kept: {lock}"
    );
    assert!(
        lock.contains(
            "provider \"registry.terraform.io/hashicorp/random\" {\n  version = \"3.6.0\""
        ),
        "{lock}"
    );
    let h1s = lock.matches("\"h1:").count();
    let current = tfsum_platform();
    let platforms = if current == "linux_amd64" { 1 } else { 2 };
    assert_eq!(
        h1s,
        2 * platforms,
        "one h1 per provider and platform:\n{lock}"
    );
    assert!(
        work.read("net/.terraform.lock.hcl").is_none(),
        "an embedded stack is no root"
    );
    assert_eq!(
        work.read("modules/app/.terraform.lock.hcl").as_deref(),
        Some(unused)
    );
    assert!(
        text.contains("modules/app/.terraform.lock.hcl: not used"),
        "{text}"
    );
    assert!(text.contains("also holds *.tf files"), "{text}");
    assert!(
        text.contains("removed registry.terraform.io/hashicorp/aws 5.0.0"),
        "{text}"
    );

    // The constraint moves past the locked version: --check fails, lock moves it.
    work.write(
        "stack/components.tfcomponent.hcl",
        &format!(
            "{}{}{}stack \"net\" {{\n  source = \"../net\"\n}}\n",
            required(&[("null", ">= 3.2.4")]),
            provider_blocks(&["null"]),
            component("app", "../modules/app", &["null"])
        ),
    );
    let check = work.tfsum(&["lock", "--check", "-r", "."]);
    assert_eq!(check.status.code(), Some(1), "{}", tfsum::text(&check));
    let report = tfsum::text(&check);
    assert!(report.contains("hashicorp/null 3.2.2 → 3.3.0"), "{report}");
    let out = work.tfsum(&["lock", "-r", "."]);
    assert_eq!(out.status.code(), Some(0), "{}", tfsum::text(&out));
    let lock = work.read("stack/.terraform.lock.hcl").expect("stack lock");
    assert!(lock.contains("version = \"3.3.0\""), "{lock}");
}

/// The platform this machine's tfsum defaults to, as Go names it.
fn tfsum_platform() -> String {
    let os = std::env::consts::OS;
    let arch = match std::env::consts::ARCH {
        "x86_64" => "amd64",
        "aarch64" => "arm64",
        other => other,
    };
    format!("{os}_{arch}")
}

/// A stack everywhere a root goes: changed-files mode (as pre-commit runs it, with the
/// configuration index of the run before) relocks the stack when its file or a
/// component's module changes, and leaves it alone for a file of another root; `verify`
/// vouches for its hashes; `mirror` fills a provider directory from its lock file; the
/// JSON report names its kind.
#[test]
fn a_stack_in_every_command() {
    let registry = registry();
    let work = Work::new(&registry);
    let stack_text = |constraint: &str| {
        format!(
            "{}{}{}",
            required(&[("null", constraint)]),
            provider_blocks(&["null"]),
            component("app", "../modules/app", &["null"])
        )
    };
    work.write("stack/components.tfcomponent.hcl", &stack_text("~> 3.2.2"));
    work.write("modules/app/main.tf", &module("null", None));
    work.write("other/main.tf", &module("random", Some("3.6.0")));
    let out = work.lock(&["-r", ".", "--format=json"]);
    assert_eq!(out.status.code(), Some(0), "{}", tfsum::text(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let kinds: Vec<(String, String)> = report["roots"]
        .as_array()
        .expect("roots")
        .iter()
        .map(|r| {
            (
                r["dir"].as_str().unwrap_or("").to_string(),
                r["kind"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    assert_eq!(
        kinds,
        [
            ("other".to_string(), "module".to_string()),
            ("stack".to_string(), "terraform_stack".to_string())
        ],
        "{report:#}"
    );
    let locked = work.read("stack/.terraform.lock.hcl").expect("lock");
    assert!(locked.contains("version = \"3.2.4\""), "{locked}");

    // A file of another root: the stack is not locked again.
    work.write("other/main.tf", &module("random", Some("3.5.1")));
    let out = work.lock(&["other/main.tf"]);
    assert_eq!(out.status.code(), Some(0), "{}", tfsum::text(&out));
    assert!(
        !tfsum::text(&out).contains("stack"),
        "{}",
        tfsum::text(&out)
    );
    // The stack's file: relocked.
    work.write("stack/components.tfcomponent.hcl", &stack_text("= 3.2.2"));
    let out = work.lock(&["stack/components.tfcomponent.hcl"]);
    assert_eq!(out.status.code(), Some(0), "{}", tfsum::text(&out));
    let locked = work.read("stack/.terraform.lock.hcl").expect("lock");
    assert!(locked.contains("version = \"3.2.2\""), "{locked}");
    // A component's module: the stack is checked again, and now fails.
    work.write(
        "modules/app/main.tf",
        &format!("{}{}", module("null", None), module("random", None)),
    );
    let out = work.lock(&["modules/app/main.tf"]);
    assert_eq!(out.status.code(), Some(1), "{}", tfsum::text(&out));
    let report = crate::harness::root_report(&out, "stack");
    assert!(
        report.contains("Provider missing from lockfile"),
        "{report}"
    );
    work.write("modules/app/main.tf", &module("null", None));

    let verify = work.tfsum(&["verify", "-r", "."]);
    assert_eq!(verify.status.code(), Some(0), "{}", tfsum::text(&verify));
    assert!(
        tfsum::text(&verify).contains("stack/.terraform.lock.hcl"),
        "{}",
        tfsum::text(&verify)
    );

    let mirror = work.scratch.path().join("mirror");
    let mirror_arg = mirror.to_string_lossy().into_owned();
    let out = work.tfsum(&[
        "mirror",
        "-r",
        "--platform",
        "linux_amd64",
        &mirror_arg,
        "stack",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", tfsum::text(&out));
    let null = mirror.join("registry.terraform.io/hashicorp/null/3.2.2/linux_amd64");
    assert!(null.is_dir(), "{}\n{}", null.display(), tfsum::text(&out));
}

/// Remote sources, fetched as module sources are: a component from the module registry
/// (its `version` a constraint, the newest allowed taken), a component from git at a
/// tag, and an embedded stack from git whose own component is a local path inside its
/// repository. The lock holds the embedded stack's provider too; a git source that
/// cannot be fetched fails the stack, naming the block and the cause.
#[test]
fn remote_components_and_stacks() {
    use crate::support::fake_modules::FakeModuleRegistry;
    use crate::support::git_http::GitServer;

    let registry = registry();
    let modules = FakeModuleRegistry::builder()
        .module("acme", "app", "null")
        .version("1.0.0")
        .file("main.tf", &module("null", Some("3.1.1")))
        .version("1.1.0")
        .file("main.tf", &module("null", None))
        .version("2.0.0")
        .file("main.tf", &module("aws", None))
        .start();
    let git = GitServer::start();
    let pets = git.repo("pets");
    pets.write("main.tf", &module("random", None));
    pets.commit("pets");
    pets.tag("v1");
    let network = git.repo("network");
    network.write(
        "network.tfcomponent.hcl",
        &format!(
            "{}{}{}",
            required(&[("random", "~> 3.5.0")]),
            provider_blocks(&["random"]),
            component("pets", "./modules/pets", &["random"])
        ),
    );
    network.write("modules/pets/main.tf", &module("random", None));
    network.commit("network");
    network.tag("v2");

    let work = Work::new(&registry);
    let cli = std::fs::read_to_string(&work.cli).expect("cli");
    std::fs::write(&work.cli, format!("{cli}{}", modules.handle().cli_config())).expect("cli");
    let source = modules.handle().source("acme", "app", "null");
    let stack = format!(
        "{}{}component \"app\" {{\n  source  = \"{source}\"\n  version = \"~> 1.0\"\n  providers = {{\n    null = provider.null.this\n  }}\n}}\n{}stack \"network\" {{\n  source = \"git::{}?ref=v2\"\n}}\n",
        required(&[("null", "~> 3.2"), ("random", "~> 3.5")]),
        provider_blocks(&["null", "random"]),
        component("pets", &format!("git::{}?ref=v1", git.url("pets")), &["random"]),
        git.url("network"),
    );
    work.write("stack/components.tfcomponent.hcl", &stack);
    let out = work.lock(&["-r", "."]);
    assert_eq!(out.status.code(), Some(0), "{}", tfsum::text(&out));
    let lock = work.read("stack/.terraform.lock.hcl").expect("lock");
    assert!(
        lock.contains("hashicorp/null\" {\n  version = \"3.3.0\""),
        "{lock}"
    );
    assert!(
        lock.contains("hashicorp/random\" {\n  version = \"3.5.1\""),
        "the embedded stack's ~> 3.5.0 too: {lock}"
    );
    assert!(
        !lock.contains("hashicorp/aws"),
        "version 2.0.0 is not allowed: {lock}"
    );

    // A tag that does not exist.
    work.write(
        "stack/components.tfcomponent.hcl",
        &stack.replace("?ref=v1", "?ref=v9"),
    );
    let out = work.lock(&["-r", "."]);
    assert_eq!(out.status.code(), Some(1), "{}", tfsum::text(&out));
    let report = crate::harness::root_report(&out, "stack");
    assert!(
        report.contains("stack/components.tfcomponent.hcl:"),
        "{report}"
    );
    assert!(
        report.contains("component \"pets\" (source \"git::"),
        "{report}"
    );
    assert_eq!(
        work.read("stack/.terraform.lock.hcl").as_deref(),
        Some(lock.as_str())
    );
}
