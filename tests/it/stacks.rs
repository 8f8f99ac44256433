//! Terragrunt stacks through the `tfsum` binary, against upstream's own cases: every case
//! of `testdata/terragrunt-stacks/upstream/` (converted from Terragrunt's
//! `test/fixtures/stacks/`, each citing the fixture and the test that asserts it) is
//! locked with `tfsum lock -r`. A case upstream generates must get a lock file in exactly
//! the directories Terragrunt generates its units into, each holding the provider its
//! module requires; a case upstream refuses must fail, naming the stack file and the
//! cause, and write nothing. Then Gruntwork's example live and catalog repositories
//! (`testdata/terragrunt-stacks/example/`, the catalog served over git), whose lock
//! files must equal Terraform 1.0.3's for each unit's assembled module.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use tempfile::TempDir;

use crate::support::fake_registry::FakeRegistry;
use crate::support::git_http::GitServer;
use crate::support::terraform;
use crate::tfsum;

const PLATFORM: &str = "linux_amd64";

fn corpus() -> PathBuf {
    terraform::repo_root().join("testdata/terragrunt-stacks")
}

fn registry() -> FakeRegistry {
    FakeRegistry::builder()
        .provider("hashicorp", "null")
        .version("3.1.0")
        .version("3.2.1")
        .provider("hashicorp", "random")
        .version("3.5.1")
        .version("3.6.0")
        .provider("hashicorp", "aws")
        .version("4.67.0")
        .version("5.30.0")
        .version("5.31.0")
        .provider("acme", "widget")
        .version("1.0.0")
        .start()
}

#[derive(serde::Deserialize)]
struct Case {
    run_in: String,
    repo_root: Option<String>,
    #[serde(default)]
    env: std::collections::BTreeMap<String, String>,
    expect: Expect,
    #[serde(default)]
    git: Vec<GitRepo>,
}

#[derive(serde::Deserialize)]
struct Expect {
    result: String,
    #[serde(default)]
    units: Vec<Unit>,
    #[serde(default)]
    plain_units: Vec<Unit>,
    #[serde(default)]
    absent: Vec<String>,
    file: Option<String>,
    unit_file: Option<String>,
    cause: Option<String>,
}

#[derive(serde::Deserialize)]
struct Unit {
    dir: String,
    provider: Option<String>,
    version: Option<String>,
    #[serde(default)]
    providers: Vec<Pinned>,
}

#[derive(serde::Deserialize)]
struct Pinned {
    provider: String,
    version: String,
}

#[derive(serde::Deserialize)]
struct GitRepo {
    repo: String,
    dir: String,
    #[serde(default)]
    tags: Vec<String>,
}

/// What tfsum's message says for each cause of the corpus vocabulary.
fn cause_text(cause: &str) -> &'static [&'static str] {
    match cause {
        "path-absolute" => &["must be relative"],
        "path-outside" => &["outside of the stack directory"],
        "path-empty" => &["must not be empty", "has no path"],
        "source-missing" => &["which is not a directory", "cannot", "not found"],
        "locals-error" => &["one locals block"],
        "coexist" => &["either a unit or a stack"],
        "unknown-value" => &[
            "is not known",
            "not declared",
            "does not have an attribute",
            "undefined variable",
        ],
        "validation-failed" => &["validation failed for"],
        "unknown-function" => &["is not supported by tfsum"],
        "stack-cycle" => &["stack cycle"],
        "fetch-failed" => &["source"],
        _ => &[],
    }
}

pub(super) fn copy_into(from: &Path, to: &Path, replacements: &[(&str, String)]) {
    for entry in walkdir::WalkDir::new(from) {
        let entry = entry.expect("walk");
        let target = to.join(entry.path().strip_prefix(from).expect("inside"));
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).expect("mkdir");
        } else {
            let bytes = std::fs::read(entry.path()).expect("read");
            let bytes = match String::from_utf8(bytes) {
                Ok(mut text) => {
                    for (placeholder, value) in replacements {
                        text = text.replace(placeholder, value);
                    }
                    text.into_bytes()
                }
                Err(e) => e.into_bytes(),
            };
            std::fs::write(&target, bytes).expect("write");
        }
    }
}

/// Every lock file below `dir`, relative, sorted.
pub(super) fn lock_files(dir: &Path) -> BTreeSet<String> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_name() == ".terraform.lock.hcl")
        .filter_map(|e| {
            let rel = e.path().strip_prefix(dir).ok()?;
            Some(rel.to_string_lossy().replace('\\', "/"))
        })
        .collect()
}

fn cli_config(registry: &FakeRegistry, dir: &Path) -> PathBuf {
    let path = dir.join("cli.tfrc");
    let text = format!(
        "{}host \"registry.terraform.io\" {{\n  services = {{\n    \"providers.v1\" = \"{}\"\n  }}\n}}\n",
        registry.cli_config(),
        registry.providers_url()
    );
    std::fs::write(&path, text).expect("cli config");
    path
}

/// The git server a case needs, its repositories committed and tagged in order.
fn serve(case_dir: &Path, repos: &[GitRepo], replacements: &[(&str, String)], git: &GitServer) {
    let mut made = BTreeSet::new();
    for repo in repos {
        let handle = if made.insert(repo.repo.clone()) {
            git.repo(&repo.repo)
        } else {
            git.existing(&repo.repo)
        };
        copy_into(&case_dir.join(&repo.dir), &handle.work, replacements);
        handle.commit(&repo.dir);
        for tag in &repo.tags {
            handle.tag(tag);
        }
    }
}

pub(super) fn git_base(git: &GitServer) -> String {
    git.url("x").trim_end_matches("/x.git").to_string()
}

/// Runs one case; `Err` says how it differs from upstream.
fn run_case(case_dir: &Path, registry: &FakeRegistry) -> Result<(), String> {
    let text = std::fs::read_to_string(case_dir.join("case.toml")).map_err(|e| e.to_string())?;
    let case: Case = toml::from_str(&text).map_err(|e| format!("case.toml: {e}"))?;
    let git = GitServer::start();
    let replacements = vec![
        ("{{REGISTRY}}", registry.host()),
        ("{{GIT}}", git_base(&git)),
    ];
    serve(case_dir, &case.git, &replacements, &git);
    let work = TempDir::new().expect("work");
    copy_into(case_dir, work.path(), &replacements);
    if let Some(root) = &case.repo_root {
        std::fs::create_dir_all(work.path().join(root).join(".git")).expect(".git");
    }
    let before = lock_files(work.path());
    let scratch = TempDir::new().expect("scratch");
    let cli = cli_config(registry, scratch.path());
    let env: Vec<(&str, &str)> = case
        .env
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let platform = format!("--platform={PLATFORM}");
    let args = ["lock", "-r", platform.as_str(), case.run_in.as_str()];
    let out = tfsum::run_with(work.path(), &cli, scratch.path(), &args, &env);
    let said = tfsum::text(&out);
    let after = lock_files(work.path());
    let new: BTreeSet<&String> = after.difference(&before).collect();
    match case.expect.result.as_str() {
        "ok" => {
            if out.status.code() != Some(0) {
                return Err(format!("upstream generates it; tfsum failed:\n{said}"));
            }
            let mut wanted = BTreeSet::new();
            for unit in case.expect.units.iter().chain(&case.expect.plain_units) {
                let lock_path = format!("{}/.terraform.lock.hcl", unit.dir);
                let lock = std::fs::read_to_string(work.path().join(&lock_path))
                    .map_err(|e| format!("{lock_path}: {e}\n{said}"))?;
                let pins: Vec<(&str, &str)> = match (&unit.provider, &unit.version) {
                    (Some(p), Some(v)) => vec![(p.as_str(), v.as_str())],
                    _ => unit
                        .providers
                        .iter()
                        .map(|p| (p.provider.as_str(), p.version.as_str()))
                        .collect(),
                };
                for (provider, version) in &pins {
                    let pattern = format!(
                        r#"provider "[^"]*/{}" \{{\s*version\s*=\s*"{}""#,
                        regex::escape(provider),
                        regex::escape(version)
                    );
                    let locked = regex::Regex::new(&pattern).map_err(|e| e.to_string())?;
                    if !locked.is_match(&lock) {
                        return Err(format!(
                            "{lock_path} should lock {provider} {version}:\n{lock}"
                        ));
                    }
                }
                let count = lock.matches("provider \"").count();
                if count != pins.len() {
                    return Err(format!(
                        "{lock_path} locks {count} providers, not {}:\n{lock}",
                        pins.len()
                    ));
                }
                wanted.insert(lock_path);
            }
            let unexpected: Vec<&&String> = new
                .iter()
                .filter(|p| !wanted.contains(p.as_str()))
                .collect();
            if !unexpected.is_empty() {
                return Err(format!(
                    "lock files where Terragrunt generates no unit: {unexpected:?}\n{said}"
                ));
            }
            for path in &case.expect.absent {
                if work.path().join(path).exists() {
                    return Err(format!("{path} must not exist"));
                }
            }
            Ok(())
        }
        "error" => {
            let cause = case.expect.cause.as_deref().unwrap_or_default();
            if out.status.code() != Some(1) {
                return Err(format!(
                    "upstream refuses it ({cause}); tfsum exited {:?}:\n{said}",
                    out.status.code()
                ));
            }
            if let Some(file) = case.expect.unit_file.as_ref().or(case.expect.file.as_ref()) {
                let name = Path::new(file)
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                if !said.contains(&name) {
                    return Err(format!("the error should name {file}:\n{said}"));
                }
            }
            let lower = said.to_lowercase();
            let wanted = cause_text(cause);
            if wanted.is_empty() || !wanted.iter().any(|w| lower.contains(&w.to_lowercase())) {
                return Err(format!("upstream's cause is {cause}; tfsum said:\n{said}"));
            }
            let generated: Vec<&&String> = new
                .iter()
                .filter(|p| p.contains(".terragrunt-stack"))
                .collect();
            if !generated.is_empty() {
                return Err(format!("a failed stack writes no lock file: {generated:?}"));
            }
            Ok(())
        }
        other => Err(format!("unknown result {other}")),
    }
}

/// Every upstream case, as Terragrunt decides it. All run; failures are reported
/// together.
#[test]
fn upstream_stack_cases() {
    let registry = registry();
    let mut cases: Vec<PathBuf> = std::fs::read_dir(corpus().join("upstream"))
        .expect("corpus")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.join("case.toml").is_file())
        .collect();
    cases.sort();
    assert!(cases.len() >= 25, "{} cases", cases.len());
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|dir| {
            run_case(dir, &registry).err().map(|why| {
                format!(
                    "{}: {why}",
                    dir.file_name().unwrap_or_default().to_string_lossy()
                )
            })
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} cases differ from upstream:\n\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n\n")
    );
}

#[derive(serde::Deserialize)]
struct Example {
    run_in: String,
    #[serde(default)]
    env: std::collections::BTreeMap<String, String>,
    expect: ExampleExpect,
    #[serde(default)]
    git: Vec<GitRepo>,
}

#[derive(serde::Deserialize)]
struct ExampleExpect {
    units: Vec<ExampleUnit>,
}

#[derive(serde::Deserialize)]
struct ExampleUnit {
    dir: String,
    assembled: String,
}

/// Gruntwork's example live repository, with its catalog served over git at a tag: the
/// six units its two stacks generate are locked at their generated paths, each lock file
/// what Terraform 1.0.3 writes for the unit's module as Terragrunt assembles it (the
/// catalog module at the tag, with `root.hcl`'s generated files), and no lock file
/// anywhere else; a second run changes nothing.
#[test]
fn example_live_and_catalog_lock_like_terraform() {
    let registry = registry();
    let example = corpus().join("example");
    let text = std::fs::read_to_string(example.join("case.toml")).expect("case.toml");
    let case: Example = toml::from_str(&text).expect("case.toml");
    let git = GitServer::start();
    let replacements = vec![
        ("{{REGISTRY}}", registry.host()),
        ("{{GIT}}", git_base(&git)),
    ];
    if case.git.is_empty() {
        let repo = git.repo("catalog");
        copy_into(&example.join("catalog"), &repo.work, &replacements);
        repo.commit("catalog");
        repo.tag("v1.0.0");
    } else {
        serve(&example, &case.git, &replacements, &git);
    }
    let work = TempDir::new().expect("work");
    copy_into(
        &example.join(&case.run_in),
        &work.path().join(&case.run_in),
        &replacements,
    );
    let scratch = TempDir::new().expect("scratch");
    let cli = cli_config(&registry, scratch.path());
    let env: Vec<(&str, &str)> = case
        .env
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let platform = format!("--platform={PLATFORM}");
    let run = || {
        let args = [
            "lock",
            "-r",
            "--format=json",
            platform.as_str(),
            case.run_in.as_str(),
        ];
        tfsum::run_with(work.path(), &cli, scratch.path(), &args, &env)
    };
    let out = run();
    assert_eq!(out.status.code(), Some(0), "{}", tfsum::text(&out));
    let mut wanted = BTreeSet::new();
    for unit in &case.expect.units {
        let lock_path = format!("{}/.terraform.lock.hcl", unit.dir);
        let got = std::fs::read_to_string(work.path().join(&lock_path))
            .unwrap_or_else(|e| panic!("{lock_path}: {e}\n{}", tfsum::text(&out)));
        let assembled = TempDir::new().expect("assembled");
        copy_into(
            &example.join(&unit.assembled),
            assembled.path(),
            &replacements,
        );
        let lock = terraform::providers_lock(assembled.path(), &[PLATFORM], &cli);
        terraform::assert_success(&lock, "terraform providers lock in the assembled unit");
        let want = terraform::read_lock_file(assembled.path());
        pretty_assertions::assert_eq!(
            got,
            want,
            "{}: tfsum (left) vs Terraform 1.0.3 (right)",
            unit.dir
        );
        wanted.insert(lock_path);
    }
    assert_eq!(lock_files(work.path()), wanted);
    let again = run();
    let report: serde_json::Value = serde_json::from_slice(&again.stdout).expect("JSON");
    assert_eq!(
        report["stats"]["unchanged"],
        case.expect.units.len(),
        "{report:#}"
    );
}

/// A small stack, changed between runs: a renamed `path` moves the lock file and the old
/// one is removed (only reported under `--check`); a changed catalog unit relocks the
/// units made from it in changed-files mode; `verify` and `fmt -r` find the lock files;
/// a unit source's own lock file is warned about; nothing is created through a link.
#[test]
fn stacks_are_kept_in_order() {
    let registry = registry();
    let work = TempDir::new().expect("work");
    let base = work.path();
    std::fs::create_dir(base.join(".git")).expect(".git");
    let host = registry.host();
    let requires = |name: &str, version: &str| {
        format!("terraform {{\n  required_providers {{\n    {name} = {{\n      source  = \"{host}/hashicorp/{name}\"\n      version = \"{version}\"\n    }}\n  }}\n}}\n")
    };
    let write = |rel: &str, text: &str| {
        let path = base.join(rel);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    };
    write(
        "catalog/units/app/terragrunt.hcl",
        "terraform {\n  source = \".\"\n}\n",
    );
    write("catalog/units/app/main.tf", &requires("null", "3.2.1"));
    let stack = |path: &str| {
        format!("unit \"app\" {{\n  source = \"../catalog/units/app\"\n  path   = \"{path}\"\n}}\n")
    };
    write("live/terragrunt.stack.hcl", &stack("app"));
    let scratch = TempDir::new().expect("scratch");
    let cli = cli_config(&registry, scratch.path());
    let tfsum = |args: &[&str]| {
        let mut all = args.to_vec();
        if matches!(args.first(), Some(&"lock")) {
            all.push("--platform=linux_amd64");
        }
        tfsum::run_with(base, &cli, scratch.path(), &all, &[])
    };
    let out = tfsum(&["lock", "-r", "."]);
    assert!(out.status.success(), "{}", tfsum::text(&out));
    let old = base.join("live/.terragrunt-stack/app/.terraform.lock.hcl");
    assert!(std::fs::read_to_string(&old)
        .expect("lock")
        .contains("hashicorp/null"));
    assert!(
        !base.join("catalog/units/app/.terraform.lock.hcl").exists(),
        "a catalog unit is a template"
    );
    let listed: Vec<_> = std::fs::read_dir(base.join("live/.terragrunt-stack/app"))
        .expect("dir")
        .map(|e| e.expect("entry").file_name())
        .collect();
    assert_eq!(
        listed,
        [".terraform.lock.hcl"],
        "nothing else is written there"
    );

    // verify and fmt find it.
    let out = tfsum(&["verify", "-r", "live"]);
    assert!(out.status.success(), "{}", tfsum::text(&out));
    assert!(
        tfsum::text(&out).contains(".terragrunt-stack/app"),
        "{}",
        tfsum::text(&out)
    );

    // The path is renamed: --check reports the stale file, a run removes it.
    write("live/terragrunt.stack.hcl", &stack("service"));
    let out = tfsum(&["lock", "-r", "--check", "."]);
    assert_eq!(out.status.code(), Some(1), "{}", tfsum::text(&out));
    assert!(
        tfsum::text(&out).contains("it would be removed"),
        "{}",
        tfsum::text(&out)
    );
    assert!(old.exists());
    let out = tfsum(&["lock", "-r", "."]);
    assert!(out.status.success(), "{}", tfsum::text(&out));
    assert!(
        tfsum::text(&out).contains("removed"),
        "{}",
        tfsum::text(&out)
    );
    assert!(!old.exists() && !old.parent().unwrap().exists());
    let new = base.join("live/.terragrunt-stack/service/.terraform.lock.hcl");
    assert!(new.exists());

    // The catalog unit changes: changed-files mode relocks the unit made from it.
    write("catalog/units/app/main.tf", &requires("random", "3.6.0"));
    let out = tfsum(&["lock", "catalog/units/app/main.tf"]);
    assert!(out.status.success(), "{}", tfsum::text(&out));
    assert!(std::fs::read_to_string(&new)
        .expect("lock")
        .contains("hashicorp/random"));

    // A lock file in the unit source is copied over ours by `stack generate`: warned.
    write("catalog/units/app/.terraform.lock.hcl", "");
    let out = tfsum(&["lock", "-r", "live"]);
    assert!(
        tfsum::text(&out).contains("catalog/units/app/.terraform.lock.hcl"),
        "{}",
        tfsum::text(&out)
    );
    std::fs::remove_file(base.join("catalog/units/app/.terraform.lock.hcl")).expect("rm");

    // A link planted where the generated directory goes: nothing is written through it.
    let outside = TempDir::new().expect("outside");
    std::fs::remove_dir_all(base.join("live/.terragrunt-stack")).expect("rm");
    std::os::unix::fs::symlink(outside.path(), base.join("live/.terragrunt-stack")).expect("link");
    let out = tfsum(&["lock", "-r", "live"]);
    assert_eq!(out.status.code(), Some(1), "{}", tfsum::text(&out));
    assert!(
        tfsum::text(&out).contains("is a link"),
        "{}",
        tfsum::text(&out)
    );
    assert_eq!(
        std::fs::read_dir(outside.path()).expect("outside").count(),
        0
    );
}

/// Versions written in a stack: `outdated` lists the module a unit's source takes from
/// its `values` (and the catalog a stack block's `source` names) at the literal in the
/// stack file, and `upgrade module` moves that literal, through a local of the stack file
/// too, and a plain unit's `?ref=`, then relocks the units from the edited files.
#[test]
fn stack_versions_are_outdated_and_upgraded() {
    let registry = registry();
    let git = GitServer::start();
    let modules = git.repo("modules");
    let requires = |name: &str, version: &str| {
        format!("terraform {{\n  required_providers {{\n    {name} = {{\n      source  = \"hashicorp/{name}\"\n      version = \"{version}\"\n    }}\n  }}\n}}\n")
    };
    modules.write("main.tf", &requires("null", "3.2.1"));
    modules.commit("v1");
    modules.tag("v1.0.0");
    modules.write("main.tf", &requires("random", "3.6.0"));
    modules.commit("v2");
    modules.tag("v2.0.0");
    let modules_url = format!("git::{}", git.url("modules"));
    let catalog = git.repo("catalog");
    catalog.write(
        "units/app/terragrunt.hcl",
        &format!("terraform {{\n  source = \"{modules_url}?ref=${{values.version}}\"\n}}\n"),
    );
    catalog.commit("catalog");
    catalog.tag("v0.1.0");
    catalog.tag("v0.2.0");
    let catalog_url = format!("git::{}", git.url("catalog"));

    let work = TempDir::new().expect("work");
    let base = work.path();
    std::fs::create_dir(base.join(".git")).expect(".git");
    let stack = format!(
        "locals {{\n  pinned  = \"v1.0.0\"\n  catalog = \"v0.1.0\"\n}}\n\nunit \"app\" {{\n  source = \"{catalog_url}//units/app?ref=v0.1.0\"\n  path   = \"app\"\n  values = {{\n    version = \"v1.0.0\"\n  }}\n}}\n\nunit \"db\" {{\n  source = \"{catalog_url}//units/app?ref=${{local.catalog}}\"\n  path   = \"db\"\n  values = {{\n    version = local.pinned\n  }}\n}}\n"
    );
    let plain = format!("terraform {{\n  source = \"{modules_url}?ref=v1.0.0\"\n}}\n");
    for (rel, text) in [
        ("live/terragrunt.stack.hcl", stack.as_str()),
        ("plain/terragrunt.hcl", plain.as_str()),
    ] {
        let path = base.join(rel);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }
    let scratch = TempDir::new().expect("scratch");
    let cli = cli_config(&registry, scratch.path());
    let tfsum = |args: &[&str]| {
        let mut all = args.to_vec();
        if matches!(args.first(), Some(&"lock" | &"upgrade")) {
            all.push("--platform=linux_amd64");
        }
        tfsum::run_with(base, &cli, scratch.path(), &all, &[])
    };
    let units = [
        "live/.terragrunt-stack/app",
        "live/.terragrunt-stack/db",
        "plain",
    ];
    let provider_of = |unit: &str| {
        let lock = std::fs::read_to_string(base.join(unit).join(".terraform.lock.hcl"))
            .unwrap_or_default();
        match (
            lock.contains("hashicorp/null"),
            lock.contains("hashicorp/random"),
        ) {
            (true, false) => "null",
            (false, true) => "random",
            _ => "neither",
        }
    };
    let out = tfsum(&["lock", "-r", "."]);
    assert!(out.status.success(), "{}", tfsum::text(&out));
    for unit in units {
        assert_eq!(provider_of(unit), "null", "{unit}");
    }

    let out = tfsum(&["outdated", "--format=json", "-r", "."]);
    assert!(out.status.success(), "{}", tfsum::text(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let items = report["items"].as_array().expect("items");
    let declared_at = |repo: &str| -> BTreeSet<(String, u64, String)> {
        items
            .iter()
            .filter(|i| i["kind"] == "module" && i["name"].as_str().unwrap_or("").contains(repo))
            .flat_map(|i| i["declared"].as_array().cloned().unwrap_or_default())
            .map(|d| {
                let via = d["via"].as_str().unwrap_or_default();
                let what = via.split(", for").next().unwrap_or_default().to_string();
                (
                    d["file"].as_str().unwrap_or_default().to_string(),
                    d["line"].as_u64().unwrap_or(0),
                    what,
                )
            })
            .collect()
    };
    let want: BTreeSet<(String, u64, String)> = [
        (
            "live/terragrunt.stack.hcl",
            10,
            "values.version of unit \"app\"",
        ),
        ("live/terragrunt.stack.hcl", 2, "local.pinned"),
        ("plain/terragrunt.hcl", 2, "terraform.source"),
    ]
    .iter()
    .map(|(f, l, w)| (f.to_string(), *l, w.to_string()))
    .collect();
    assert_eq!(declared_at("modules"), want, "{report:#}");
    let want: BTreeSet<(String, u64, String)> = [
        ("live/terragrunt.stack.hcl", 7, "the source of unit \"app\""),
        ("live/terragrunt.stack.hcl", 3, "local.catalog"),
    ]
    .iter()
    .map(|(f, l, w)| (f.to_string(), *l, w.to_string()))
    .collect();
    assert_eq!(declared_at("catalog"), want, "{report:#}");
    assert!(
        items.iter().any(|i| i["name"].as_str().unwrap_or("").contains("modules")
            && i["latest"] == "2.0.0"),
        "{report:#}"
    );

    // The module moves where each unit's version is written; the units are relocked
    // from the edited files.
    let out = tfsum(&["upgrade", "module", &modules_url, "-r", "."]);
    assert!(out.status.success(), "{}", tfsum::text(&out));
    let edited = std::fs::read_to_string(base.join("live/terragrunt.stack.hcl")).expect("stack");
    assert_eq!(
        edited,
        stack
            .replace("pinned  = \"v1.0.0\"", "pinned  = \"v2.0.0\"")
            .replace("version = \"v1.0.0\"", "version = \"v2.0.0\""),
    );
    assert_eq!(
        std::fs::read_to_string(base.join("plain/terragrunt.hcl")).expect("plain"),
        plain.replace("?ref=v1.0.0", "?ref=v2.0.0")
    );
    for unit in units {
        assert_eq!(provider_of(unit), "random", "{unit}");
    }
    // Changed-files mode: the stack file edited by hand relocks the units it generates.
    let edited = edited.replace("version = \"v2.0.0\"", "version = \"v1.0.0\"");
    std::fs::write(base.join("live/terragrunt.stack.hcl"), &edited).expect("write");
    let out = tfsum(&["lock", "live/terragrunt.stack.hcl"]);
    assert!(out.status.success(), "{}", tfsum::text(&out));
    assert_eq!(provider_of("live/.terragrunt-stack/app"), "null");
    assert_eq!(provider_of("live/.terragrunt-stack/db"), "random");
    // The catalog ref, as a pinned version and through the local.
    let out = tfsum(&[
        "upgrade",
        "module",
        &catalog_url,
        "0.2.0",
        "--no-lock",
        "-r",
        ".",
    ]);
    assert!(out.status.success(), "{}", tfsum::text(&out));
    let edited = std::fs::read_to_string(base.join("live/terragrunt.stack.hcl")).expect("stack");
    assert!(
        edited.contains("units/app?ref=v0.2.0\"") && edited.contains("catalog = \"v0.2.0\""),
        "{edited}"
    );
}
