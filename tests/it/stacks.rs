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

fn copy_into(from: &Path, to: &Path, replacements: &[(&str, String)]) {
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
fn lock_files(dir: &Path) -> BTreeSet<String> {
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

fn git_base(git: &GitServer) -> String {
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
