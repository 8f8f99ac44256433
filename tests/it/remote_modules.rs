//! Remote modules through the `tfsum` binary: roots whose providers are declared only in
//! registry and git modules, locked without any `.terraform/` directory, must equal what
//! `terraform init` (v1.0.3) writes after installing those modules itself; each module is
//! fetched once per run and never again from a warm cache; a call that cannot be fetched
//! fails its root alone, naming the call.

use pretty_assertions::assert_eq;
use serde_json::Value;

use crate::modules_fetch::ModuleConformance;
use crate::tfsum;
use crate::twin::Twin;

const ROOTS: [&str; 3] = ["app", "branch", "edge"];

fn twin(world: &ModuleConformance) -> Twin {
    Twin::with(
        world.copy_roots(),
        world.copy_roots(),
        &world.cli_config(),
        &world.providers.host(),
    )
}

/// `tfsum lock -r --format=json ARGS… .` in tfsum's copy: the exit code and the report.
fn lock_json(twin: &Twin, extra: &[&str]) -> (Option<i32>, Value) {
    let mut args = vec!["lock", "-r", "--format=json", "--platform=linux_amd64"];
    args.extend(extra);
    args.push(".");
    let out = twin.tfsum(&args);
    let report = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: not a JSON report:\n{}", tfsum::text(&out)));
    (out.status.code(), report)
}

fn stat(report: &Value, name: &str) -> u64 {
    report["stats"][name]
        .as_u64()
        .unwrap_or_else(|| panic!("stats.{name} in {report:#}"))
}

/// The conformance fixture: registry modules chosen by constraint (`~> 1.0`, none),
/// nested registry → registry → git calls, git by tag and by a branch that moved past
/// the tag, `//subdir`, local calls inside remote packages. tfsum reads none of it from
/// `.terraform/` (there is none) and must still write Terraform's bytes.
#[test]
fn remote_module_roots_lock_like_terraform_init() {
    let world = ModuleConformance::start();
    let twin = twin(&world);
    let (code, report) = lock_json(&twin, &[]);
    assert_eq!(code, Some(0), "{report:#}");
    // Distinct packages: vpc 1.1.0 (app, net), vpc 2.0.0 (edge's latest_vpc), net 3.0.0,
    // shared.git at v1.4.0 (app, net) and at main (branch).
    assert_eq!(stat(&report, "modules_fetched"), 5, "{report:#}");
    assert_eq!(stat(&report, "modules_from_cache"), 0, "{report:#}");
    for root in ROOTS {
        assert!(
            !twin.tfsum_dir().join(root).join(".terraform").exists(),
            "{root}: tfsum must not create .terraform"
        );
        let want = twin.init(root, false);
        assert_eq!(
            twin.tfsum_lock_file(root),
            want,
            "{root}: tfsum (left) vs terraform init (right)"
        );
    }

    // A second run finds every module in the cache, and so does an offline one.
    let (code, report) = lock_json(&twin, &[]);
    assert_eq!(code, Some(0), "{report:#}");
    assert_eq!(stat(&report, "modules_fetched"), 0, "{report:#}");
    assert_eq!(stat(&report, "modules_from_cache"), 5, "{report:#}");
    assert_eq!(stat(&report, "unchanged"), 3, "{report:#}");
    world.git.reset_counts();
    let (code, report) = lock_json(&twin, &["--offline"]);
    assert_eq!(code, Some(0), "{report:#}");
    assert_eq!(stat(&report, "modules_fetched"), 0, "{report:#}");
    assert_eq!(
        world.git.requests().len(),
        0,
        "--offline must not reach git"
    );
}

/// A module that the registry does not have fails the root calling it with the call's
/// file and line; the other roots are still locked; the exit code is 1.
#[test]
fn a_missing_remote_module_fails_only_its_root() {
    let world = ModuleConformance::start();
    let twin = twin(&world);
    twin.write(
        "broken/main.tf",
        &format!(
            "module \"gone\" {{\n  source  = \"{}/acme/gone/aws\"\n  version = \"1.0.0\"\n}}\n",
            world.modules.host()
        ),
    );
    let (code, report) = lock_json(&twin, &[]);
    assert_eq!(code, Some(1), "{report:#}");
    let roots = report["roots"].as_array().unwrap();
    let outcome = |dir: &str| {
        roots
            .iter()
            .find(|r| r["dir"] == dir)
            .unwrap_or_else(|| panic!("{dir} in {report:#}"))
    };
    let broken = outcome("broken");
    assert_eq!(broken["outcome"], "failed", "{broken:#}");
    let detail = broken["detail"].as_str().unwrap();
    assert!(detail.contains("main.tf:1"), "{detail}");
    assert!(detail.contains("module \"gone\""), "{detail}");
    assert!(detail.contains("acme/gone/aws"), "{detail}");
    for root in ROOTS {
        assert_eq!(outcome(root)["outcome"], "created", "{root}: {report:#}");
    }
}

/// Terragrunt units whose `terraform.source` is a registry module (`tfr://`, exact
/// version) or a git repository subdirectory: the unit's lock is what `terraform init`
/// writes for a root calling the same module (Terragrunt runs `init` in a copy of the
/// module, whose requirements and constraints are the same).
#[test]
fn terragrunt_remote_sources_lock_like_the_module_they_name() {
    let world = ModuleConformance::start();
    let twin = twin(&world);
    let modules = world.modules.host();
    let git = world.git.url("shared");
    let units = [
        (
            "vpc",
            format!("tfr://{modules}/acme/vpc/aws?version=1.1.0"),
            format!("source  = \"{modules}/acme/vpc/aws\"\n  version = \"1.1.0\""),
        ),
        (
            "dns",
            format!("git::{git}//dns?ref=v1.4.0"),
            format!("source = \"git::{git}//dns?ref=v1.4.0\""),
        ),
    ];
    for (name, unit_source, call) in &units {
        twin.write(
            &format!("live/{name}/terragrunt.hcl"),
            &format!("terraform {{\n  source = \"{unit_source}\"\n}}\n"),
        );
        twin.write(
            &format!("wrap/{name}/main.tf"),
            &format!("module \"m\" {{\n  {call}\n}}\n"),
        );
    }
    let (code, report) = lock_json(&twin, &[]);
    assert_eq!(code, Some(0), "{report:#}");
    for (name, ..) in &units {
        let want = twin.init(&format!("wrap/{name}"), false);
        assert_eq!(
            twin.tfsum_lock_file(&format!("live/{name}")),
            want,
            "live/{name}: tfsum (left) vs terraform init (right)"
        );
    }
}
