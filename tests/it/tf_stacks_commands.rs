//! Terraform Stacks (HCP Terraform, `*.tfcomponent.hcl`) through `tfsum outdated` and
//! `tfsum upgrade`, a stack a root like any other (issue 47): outdated lists a stack's
//! providers (its `required_providers` against its lock file) and its registry
//! components' versions, where they are written; upgrade edits the stack file in place
//! (formatting kept) and relocks the stack's lock file in the form `terraform stacks
//! providers-lock` writes; `--check` writes nothing; the JSON documents name the root's
//! kind. Helpers follow `tf_stacks.rs`.

use std::path::PathBuf;

use serde_json::Value;

use crate::support::fake_modules::FakeModuleRegistry;
use crate::support::fake_registry::FakeRegistry;
use crate::tf_stacks::Work;
use crate::tfsum;

const PLATFORMS: [&str; 2] = ["darwin_arm64", "linux_amd64"];

const STACKS_HEADER: &str = "# This file is maintained automatically by \"terraform stacks providers-lock\".\n# Manual edits may be lost in future updates.\n";

fn registry() -> FakeRegistry {
    let mut builder = FakeRegistry::builder();
    for (name, versions) in [
        ("random", &["3.3.2", "3.5.1", "3.6.0"][..]),
        ("null", &["3.2.2", "3.2.4", "3.3.0"][..]),
    ] {
        builder = builder.provider("hashicorp", name);
        for version in versions {
            builder = builder.version(version).platforms(&PLATFORMS);
        }
    }
    builder.start()
}

/// The component module `acme/pet/random`: it uses `hashicorp/random`, which its caller
/// passes.
const PET: &str = "terraform {\n  required_providers {\n    random = {\n      source = \"hashicorp/random\"\n    }\n  }\n}\n\nresource \"random_pet\" \"this\" {}\n";

fn modules() -> FakeModuleRegistry {
    let mut builder = FakeModuleRegistry::builder().module("acme", "pet", "random");
    for version in ["1.0.0", "1.1.0", "2.0.0"] {
        builder = builder.version(version).file("main.tf", PET);
    }
    builder.start()
}

/// Every file below the repository `work` (its scratch directory is elsewhere), with its
/// bytes.
fn tree(work: &Work) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out: Vec<(PathBuf, Vec<u8>)> = walkdir::WalkDir::new(work.path())
        .into_iter()
        .map(|e| e.expect("walk"))
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let rel = e.path().strip_prefix(work.path()).expect("inside");
            (rel.to_path_buf(), std::fs::read(e.path()).expect("read"))
        })
        .collect();
    out.sort();
    out
}

/// The stack: its providers' entries aligned with trailing comments as `terraform fmt`
/// leaves them; a registry component, a removed block of the same module, and a local
/// component.
fn stack(pet: &str) -> String {
    format!(
        r#"required_providers {{
  random = {{
    source  = "hashicorp/random" # the public registry
    version = "~> 3.5.1"         # tested with 3.5
  }}
  null = {{
    source  = "hashicorp/null"
    version = "~> 3.2.2"
  }}
}}

provider "random" "this" {{}}
provider "null" "this" {{}}

component "pet" {{
  source  = "{pet}"
  version = "~> 1.0.0"
  providers = {{
    random = provider.random.this
  }}
}}

removed {{
  from    = component.old_pet
  source  = "{pet}"
  version = "~> 1.0.0"
  providers = {{
    random = provider.random.this
  }}
}}

component "nulls" {{
  source = "../modules/nulls"
  providers = {{
    null = provider.null.this
  }}
}}
"#
    )
}

const NULLS: &str = "resource \"null_resource\" \"this\" {}\n";

/// A root module beside the stack, requiring random too.
const PLAIN: &str = "terraform {\n  required_providers {\n    random = {\n      source  = \"hashicorp/random\"\n      version = \"~> 3.5\"\n    }\n  }\n}\n";

/// The line (from 1) of the first line of `text` holding `needle` after the line
/// holding `after`.
fn line_of(text: &str, after: &str, needle: &str) -> usize {
    let start = text.lines().position(|l| l.contains(after)).expect("after");
    start
        + 1
        + text
            .lines()
            .skip(start)
            .position(|l| l.contains(needle))
            .expect("needle")
}

/// A repository holding the stack (locked), its local component's module, a root
/// module, and a stack that does not parse.
fn repository(registry: &FakeRegistry, modules: &FakeModuleRegistry) -> (Work, String) {
    let work = Work::with_cli(registry, &modules.cli_config());
    let pet = modules.source("acme", "pet", "random");
    work.write("stack/components.tfcomponent.hcl", &stack(&pet));
    work.write(
        "stack/deployments.tfdeploy.hcl",
        "deployment \"prod\" {\n  inputs = {}\n}\n",
    );
    work.write("modules/nulls/main.tf", NULLS);
    work.write("plain/main.tf", PLAIN);
    let out = work.with_platforms(&["lock", "-r", "."]);
    assert_eq!(out.status.code(), Some(0), "{}", tfsum::text(&out));
    let lock = work.read("stack/.terraform.lock.hcl").expect("stack lock");
    assert!(lock.contains("version = \"3.5.1\""), "{lock}");
    (work, pet)
}

/// `outdated` over a repository with a stack: the stack's providers (locked, allowed by
/// its `required_providers`, newest) declared at the stack file's lines; its registry
/// component and removed block as one module row declared where each `version` is
/// written; the roots' kinds in JSON, and a stack that fails named as one in text.
#[test]
fn outdated_lists_a_stacks_providers_and_registry_components() {
    let (registry, modules) = (registry(), modules());
    let (work, pet) = repository(&registry, &modules);
    work.write("broken/stack.tfcomponent.hcl", "required_providers {\n");
    let file = "stack/components.tfcomponent.hcl";
    let text = stack(&pet);
    let random_at = line_of(&text, "random = {", "version");
    let null_at = line_of(&text, "null = {", "version");
    let pet_at = line_of(&text, "component \"pet\"", "version");
    let removed_at = line_of(&text, "removed {", "version");

    let out = work.tfsum(&["outdated", "-r", "."]);
    let stdout = String::from_utf8_lossy(&out.stdout).replace(&modules.host(), "[MODULES]");
    assert_eq!(
        out.status.code(),
        Some(1),
        "a failed root: {}",
        tfsum::text(&out)
    );
    let rows: Vec<String> = stdout
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect();
    let row = |name: &str| {
        rows.iter()
            .find(|l| l.starts_with(name))
            .unwrap_or_else(|| panic!("no row {name}:\n{stdout}"))
            .clone()
    };
    assert_eq!(
        row("registry.terraform.io/hashicorp/random 3.5.1"),
        format!("registry.terraform.io/hashicorp/random 3.5.1 3.5.1 3.6.0 minor 1 {file}:{random_at} \"~> 3.5.1\"")
    );
    assert_eq!(
        row("registry.terraform.io/hashicorp/null"),
        format!("registry.terraform.io/hashicorp/null 3.2.4 3.2.4 3.3.0 minor 1 {file}:{null_at} \"~> 3.2.2\"")
    );
    assert_eq!(
        row("[MODULES]/acme/pet/random (module)"),
        format!("[MODULES]/acme/pet/random (module) 1.0.0 1.0.0 2.0.0 major 1 {file}:{pet_at} \"~> 1.0.0\" (+1 more)")
    );
    assert!(
        stdout.contains("failed: broken (terraform stack): "),
        "{stdout}"
    );

    let json = work.tfsum(&["outdated", "-r", "--format=json", "."]);
    assert_eq!(json.status.code(), Some(1), "{}", tfsum::text(&json));
    let doc: Value = serde_json::from_slice(&json.stdout).expect("JSON");
    let kinds: Vec<(&str, &str)> = doc["roots"]
        .as_array()
        .expect("roots")
        .iter()
        .map(|r| {
            (
                r["dir"].as_str().unwrap_or(""),
                r["kind"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        kinds,
        [
            ("broken", "terraform_stack"),
            ("plain", "module"),
            ("stack", "terraform_stack")
        ],
        "{doc:#}"
    );
    assert_eq!(doc["failed"][0]["kind"], "terraform_stack", "{doc:#}");
    let module = doc["items"]
        .as_array()
        .expect("items")
        .iter()
        .find(|i| i["kind"] == "module")
        .expect("the component's row");
    let declared: Vec<(String, u64, String, bool)> = module["declared"]
        .as_array()
        .expect("declared")
        .iter()
        .map(|d| {
            (
                d["file"].as_str().unwrap_or("").to_string(),
                d["line"].as_u64().unwrap_or(0),
                d["constraint"].as_str().unwrap_or("").to_string(),
                d.get("via").is_some(),
            )
        })
        .collect();
    let at = |line| (file.to_string(), line, "~> 1.0.0".to_string(), false);
    assert_eq!(declared, [at(pet_at as u64), at(removed_at as u64)]);
    assert_eq!(module["roots"], serde_json::json!(["stack"]));
    // random is a row per root: the stack locks 3.5.1, the root module 3.6.0.
    let random: Vec<&Value> = doc["items"]
        .as_array()
        .expect("items")
        .iter()
        .filter(|i| i["name"] == "registry.terraform.io/hashicorp/random")
        .collect();
    assert_eq!(random.len(), 2, "{doc:#}");
}

/// `upgrade provider` on a repository with a stack: `--check` exits 1 and writes
/// nothing; the run edits the stack's entry (only its value; the comments stay aligned)
/// and the root module's, relocks the stack's lock file in the stacks form and the root
/// module's in `terraform init`'s; the JSON report names the edits and the stack root.
#[test]
fn upgrade_provider_edits_a_stack_and_relocks_it() {
    let (registry, modules) = (registry(), modules());
    let (work, pet) = repository(&registry, &modules);
    let before = tree(&work);
    let check = work.with_platforms(&[
        "upgrade",
        "provider",
        "hashicorp/random",
        "3.6.0",
        "--check",
        "-r",
        ".",
    ]);
    assert_eq!(check.status.code(), Some(1), "{}", tfsum::text(&check));
    assert!(
        tree(&work) == before,
        "--check wrote:\n{}",
        tfsum::text(&check)
    );

    let out = work.with_platforms(&[
        "upgrade",
        "provider",
        "hashicorp/random",
        "3.6.0",
        "-r",
        "--format=json",
        ".",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", tfsum::text(&out));
    let want = stack(&pet).replace(
        "    version = \"~> 3.5.1\"         # tested with 3.5",
        &format!("{:<33}# tested with 3.5", "    version = \"3.6.0\""),
    );
    assert_eq!(
        work.read("stack/components.tfcomponent.hcl").as_deref(),
        Some(want.as_str())
    );
    assert_eq!(
        work.read("plain/main.tf").as_deref(),
        Some(PLAIN.replace("\"~> 3.5\"", "\"3.6.0\"").as_str())
    );
    let lock = work.read("stack/.terraform.lock.hcl").expect("stack lock");
    assert!(lock.starts_with(STACKS_HEADER), "{lock}");
    assert!(!lock.contains("constraints"), "{lock}");
    assert!(
        lock.contains(
            "provider \"registry.terraform.io/hashicorp/random\" {\n  version = \"3.6.0\""
        ),
        "{lock}"
    );
    assert!(
        lock.contains("provider \"registry.terraform.io/hashicorp/null\" {\n  version = \"3.2.4\""),
        "kept: {lock}"
    );
    let plain = work.read("plain/.terraform.lock.hcl").expect("plain lock");
    assert!(plain.contains("constraints = \"3.6.0\""), "{plain}");

    let doc: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let edits: Vec<(String, &str, &str, &str)> = doc["edits"]
        .as_array()
        .expect("edits")
        .iter()
        .map(|e| {
            (
                e["file"].as_str().unwrap_or("").replace('\\', "/"),
                e["kind"].as_str().unwrap_or(""),
                e["from"].as_str().unwrap_or(""),
                e["to"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        edits,
        [
            (
                "plain/main.tf".to_string(),
                "required_providers",
                "~> 3.5",
                "3.6.0"
            ),
            (
                "stack/components.tfcomponent.hcl".to_string(),
                "required_providers",
                "~> 3.5.1",
                "3.6.0"
            ),
        ],
        "{doc:#}"
    );
    let roots: Vec<(&str, &str, &str)> = doc["lock"]["roots"]
        .as_array()
        .expect("lock roots")
        .iter()
        .map(|r| {
            (
                r["dir"].as_str().unwrap_or(""),
                r["kind"].as_str().unwrap_or(""),
                r["outcome"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        roots,
        [
            ("plain", "module", "updated"),
            ("stack", "terraform_stack", "updated")
        ],
        "{doc:#}"
    );
    // What was written is what `lock` writes for the configuration as edited.
    let again = work.with_platforms(&["lock", "--check", "-r", "."]);
    assert_eq!(again.status.code(), Some(0), "{}", tfsum::text(&again));

    // A stack file given as the PATH: that file alone, by local name.
    let out = work.with_platforms(&[
        "upgrade",
        "provider",
        "null",
        "3.3.0",
        "stack/components.tfcomponent.hcl",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", tfsum::text(&out));
    let edited = work
        .read("stack/components.tfcomponent.hcl")
        .expect("stack");
    assert_eq!(
        edited,
        want.replace("version = \"~> 3.2.2\"", "version = \"3.3.0\"")
    );
    let lock = work.read("stack/.terraform.lock.hcl").expect("stack lock");
    assert!(
        lock.contains("provider \"registry.terraform.io/hashicorp/null\" {\n  version = \"3.3.0\""),
        "{lock}"
    );
}

/// `upgrade module` on a registry component: the `version` of the component and of the
/// removed block sourcing the same module move (`module_version` edits), the rest of the
/// file stays, and the stack is relocked with the new module fetched; a `--check` run
/// afterwards finds nothing to change.
#[test]
fn upgrade_module_moves_a_registry_component() {
    let (registry, modules) = (registry(), modules());
    let (work, pet) = repository(&registry, &modules);
    let check = work.with_platforms(&["upgrade", "module", &pet, "2.0.0", "--check", "-r", "."]);
    assert_eq!(check.status.code(), Some(1), "{}", tfsum::text(&check));
    assert_eq!(
        work.read("stack/components.tfcomponent.hcl"),
        Some(stack(&pet))
    );

    let out = work.with_platforms(&[
        "upgrade",
        "module",
        &pet,
        "2.0.0",
        "-r",
        "--format=json",
        ".",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", tfsum::text(&out));
    let want = stack(&pet).replace("version = \"~> 1.0.0\"", "version = \"2.0.0\"");
    assert_eq!(
        work.read("stack/components.tfcomponent.hcl").as_deref(),
        Some(want.as_str())
    );
    let doc: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let text = stack(&pet);
    let lines: Vec<(u64, &str, &str)> = doc["edits"]
        .as_array()
        .expect("edits")
        .iter()
        .map(|e| {
            (
                e["line"].as_u64().unwrap_or(0),
                e["kind"].as_str().unwrap_or(""),
                e["to"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        lines,
        [
            (
                line_of(&text, "component \"pet\"", "version") as u64,
                "module_version",
                "2.0.0"
            ),
            (
                line_of(&text, "removed {", "version") as u64,
                "module_version",
                "2.0.0"
            ),
        ],
        "{doc:#}"
    );
    let roots: Vec<(&str, &str)> = doc["lock"]["roots"]
        .as_array()
        .expect("lock roots")
        .iter()
        .map(|r| {
            (
                r["dir"].as_str().unwrap_or(""),
                r["kind"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(roots, [("stack", "terraform_stack")], "{doc:#}");
    assert!(
        modules.count("/acme/pet/random/2.0.0/download") > 0,
        "the relock fetched the new version"
    );
    let again = work.with_platforms(&["upgrade", "module", &pet, "2.0.0", "--check", "-r", "."]);
    assert_eq!(again.status.code(), Some(0), "{}", tfsum::text(&again));
}
