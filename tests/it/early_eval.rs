//! Early evaluation against upstream's own cases: every case of `testdata/early-eval/`
//! (converted from Terraform v1.15.9's and OpenTofu v1.12.6's fixtures and test tables;
//! each names its origin in `case.toml`) is locked by the `tfsum` binary.
//!
//! - A case upstream accepts must lock, and its lock file must equal the one the oracle
//!   writes for the same configuration with the evaluated values written as literals
//!   (`literal/`): Terraform 1.0.3 for Terraform's rules, tfsum itself (whose literal
//!   handling the conformance tests hold to Terraform) for OpenTofu's, whose lock file
//!   names another registry. Every module directory requires a provider of its own, so
//!   a module picked wrongly changes the lock file.
//! - A case upstream rejects must fail its root, with a message naming the cause
//!   upstream's diagnostic names (the vocabulary of the corpus README), and write no lock
//!   file.

use std::path::{Path, PathBuf};

use tempfile::TempDir;

use crate::support::fake_modules::{FakeModuleRegistry, SELF_PLACEHOLDER};
use crate::support::fake_registry::FakeRegistry;
use crate::support::terraform;
use crate::tfsum;

const PLATFORM: &str = "linux_amd64";

fn corpus() -> PathBuf {
    terraform::repo_root().join("testdata/early-eval")
}

/// The registry every case's providers come from (the corpus adds one of these to each
/// module it installs).
fn providers() -> FakeRegistry {
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
    origin: String,
    flavor: String,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    env: std::collections::BTreeMap<String, String>,
    expect: Expect,
    #[serde(default)]
    packages: Vec<Package>,
}

#[derive(serde::Deserialize)]
struct Expect {
    result: String,
    cause: Option<String>,
    detail: Option<String>,
}

#[derive(serde::Deserialize)]
struct Package {
    address: String,
    version: String,
    dir: String,
    literal_dir: Option<String>,
}

/// What tfsum's message says for each cause of the corpus vocabulary.
fn cause_text(cause: &str, flavor: &str) -> &'static [&'static str] {
    match (cause, flavor) {
        ("no-value", _) => &["no value for required variable"],
        ("not-const", _) => &["is not declared `const = true`"],
        ("invalid-reference", "terraform") => &["but Terraform allows a module"],
        ("invalid-reference", _) => &["is not available before planning"],
        ("unknown-value", _) => &["is not known during init"],
        ("provider-function", _) => &["provider-defined function"],
        ("null-source", _) => &["the value is null"],
        ("sensitive-value", _) => &["sensitive"],
        ("ephemeral-value", _) => &["ephemeral"],
        ("const-sensitive", _) => &["a const variable cannot be sensitive"],
        ("const-ephemeral", _) => &["a const variable cannot be ephemeral"],
        ("const-false", _) => &["declared `const = false`"],
        ("const-arg-unknown", _) => &["must be known during init"],
        ("missing-required-argument", _) => &["does not give the required variable"],
        ("version-on-local-source", _) => &["cannot apply a version constraint"],
        ("invalid-source-address", _) => &["source"],
        ("invalid-version-constraint", _) => &["constraint"],
        ("circular-reference", _) => &["circular reference"],
        ("undeclared-variable", _) => &["undeclared input variable"],
        ("undeclared-local", _) => &["undeclared local value"],
        ("type-mismatch", _) => &["incorrect value type", "invalid value for variable"],
        ("validation-failed", _) => &["invalid value for variable"],
        ("module-not-found", _) => &[
            "no such file",
            "no .tf",
            "no configuration files",
            "cannot read",
        ],
        ("unknown-function", _) => &["no function named"],
        _ => &[],
    }
}

/// A copy of `from` with the placeholders replaced.
fn copy(from: &Path, replacements: &[(&str, String)]) -> TempDir {
    let out = TempDir::new().expect("temp dir");
    for entry in walkdir::WalkDir::new(from) {
        let entry = entry.expect("walk");
        let target = out
            .path()
            .join(entry.path().strip_prefix(from).expect("inside"));
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).expect("mkdir");
        } else {
            let mut text = std::fs::read_to_string(entry.path()).expect("read");
            for (placeholder, value) in replacements {
                text = text.replace(placeholder, value);
            }
            std::fs::write(&target, text).expect("write");
        }
    }
    out
}

/// The module registry a case's packages need (`None` when it needs none); `literal`
/// picks the packages' literal variants.
fn module_registry(
    case_dir: &Path,
    case: &Case,
    host: &str,
    literal: bool,
) -> Option<FakeModuleRegistry> {
    if case.packages.is_empty() {
        return None;
    }
    let mut builder = FakeModuleRegistry::builder();
    let mut previous: Option<&str> = None;
    for package in &case.packages {
        let parts: Vec<&str> = package.address.split('/').collect();
        let [ns, name, system] = parts.as_slice() else {
            panic!("{}: package address {}", case.origin, package.address);
        };
        let dir = match (&package.literal_dir, literal) {
            (Some(dir), true) => dir,
            _ => &package.dir,
        };
        if previous != Some(package.address.as_str()) {
            builder = builder.module(ns, name, system);
            previous = Some(&package.address);
        }
        builder = builder
            .version(&package.version)
            .files_from(&case_dir.join(dir), &[("{{REGISTRY}}", host.to_string())]);
    }
    Some(builder.start())
}

/// A CLI configuration sending both default registries to the fake provider registry,
/// and the module registry's host to it.
fn cli_config(registry: &FakeRegistry, modules: Option<&FakeModuleRegistry>) -> String {
    let mut out = registry.cli_config();
    for host in ["registry.terraform.io", "registry.opentofu.org"] {
        out.push_str(&format!(
            "host \"{host}\" {{\n  services = {{\n    \"providers.v1\" = \"{}\"\n  }}\n}}\n",
            registry.providers_url()
        ));
    }
    if let Some(modules) = modules {
        out.push_str(&modules.cli_config());
    }
    out
}

/// `tfsum lock` of the root in `dir`, with the case's values when `values` says so.
fn tfsum_lock(dir: &Path, cli: &Path, case: &Case, values: bool) -> std::process::Output {
    let scratch = TempDir::new().expect("scratch");
    let mut args: Vec<String> = vec!["lock".into(), format!("--platform={PLATFORM}")];
    if case.flavor == "opentofu" {
        args.push("--flavor=opentofu".into());
    }
    let mut env: Vec<(&str, &str)> = Vec::new();
    if values {
        args.extend(case.args.iter().cloned());
        env.extend(case.env.iter().map(|(k, v)| (k.as_str(), v.as_str())));
    }
    args.push(".".into());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    tfsum::run_with(dir, cli, scratch.path(), &args, &env)
}

/// Runs one case; `Err` says how it differs from upstream.
fn run_case(case_dir: &Path, registry: &FakeRegistry) -> Result<(), String> {
    let text = std::fs::read_to_string(case_dir.join("case.toml")).map_err(|e| e.to_string())?;
    let case: Case = toml::from_str(&text).map_err(|e| format!("case.toml: {e}"))?;
    let host = registry.host();
    let modules = module_registry(case_dir, &case, &host, false);
    let mut replacements = vec![("{{REGISTRY}}", host.clone())];
    if let Some(m) = &modules {
        replacements.push((SELF_PLACEHOLDER, m.host()));
    }
    let scratch = TempDir::new().expect("scratch");
    let cli = scratch.path().join("cli.tfrc");
    std::fs::write(&cli, cli_config(registry, modules.as_ref())).expect("cli config");
    let root = copy(&case_dir.join("root"), &replacements);
    let out = tfsum_lock(root.path(), &cli, &case, true);
    let said = tfsum::text(&out);
    let lock = root.path().join(".terraform.lock.hcl");
    match case.expect.result.as_str() {
        "ok" => {
            if out.status.code() != Some(0) {
                return Err(format!("upstream accepts it; tfsum failed:\n{said}"));
            }
            let got = std::fs::read_to_string(&lock).map_err(|e| format!("no lock file: {e}"))?;
            let want = oracle(case_dir, &case, registry, &host)?;
            if got != want {
                return Err(format!("lock file differs from the literal configuration's:\n--- tfsum\n{got}\n--- oracle\n{want}"));
            }
            Ok(())
        }
        "error" => {
            let cause = case.expect.cause.as_deref().unwrap_or_default();
            if out.status.code() != Some(1) {
                return Err(format!(
                    "upstream rejects it ({cause}: {}); tfsum exited {:?}:\n{said}",
                    case.expect.detail.as_deref().unwrap_or_default(),
                    out.status.code()
                ));
            }
            if lock.exists() {
                return Err("a failed root must get no lock file".into());
            }
            let wanted = cause_text(cause, &case.flavor);
            let lower = said.to_lowercase();
            if wanted.is_empty() || !wanted.iter().any(|w| lower.contains(&w.to_lowercase())) {
                return Err(format!(
                    "upstream's cause is {cause} ({}); tfsum said:\n{said}",
                    case.expect.detail.as_deref().unwrap_or_default()
                ));
            }
            Ok(())
        }
        other => Err(format!("unknown result {other}")),
    }
}

/// The lock file of the case's `literal/` configuration, from the oracle (module docs).
fn oracle(
    case_dir: &Path,
    case: &Case,
    registry: &FakeRegistry,
    host: &str,
) -> Result<String, String> {
    let modules = module_registry(case_dir, case, host, true);
    let mut replacements = vec![("{{REGISTRY}}", host.to_string())];
    if let Some(m) = &modules {
        replacements.push((SELF_PLACEHOLDER, m.host()));
    }
    let scratch = TempDir::new().expect("scratch");
    let cli = scratch.path().join("cli.tfrc");
    std::fs::write(&cli, cli_config(registry, modules.as_ref())).expect("cli config");
    let literal = copy(&case_dir.join("literal"), &replacements);
    if case.flavor == "opentofu" {
        let out = tfsum_lock(literal.path(), &cli, case, false);
        if out.status.code() != Some(0) {
            return Err(format!("tfsum on literal/ failed:\n{}", tfsum::text(&out)));
        }
    } else {
        let dir = literal.path();
        let get = terraform::run(dir, &cli, &["get", "-no-color"]);
        if !get.status.success() {
            return Err(format!(
                "terraform get on literal/: {}",
                terraform::combined_output(&get)
            ));
        }
        let out = terraform::providers_lock(dir, &[PLATFORM], &cli);
        if !out.status.success() {
            return Err(format!(
                "terraform providers lock on literal/: {}",
                terraform::combined_output(&out)
            ));
        }
    }
    std::fs::read_to_string(literal.path().join(".terraform.lock.hcl")).map_err(|e| e.to_string())
}

/// Every case of the corpus, as upstream decides it (module docs). All cases run; the
/// failures are reported together.
#[test]
fn upstream_early_evaluation_cases() {
    let registry = providers();
    let mut cases: Vec<PathBuf> = walkdir::WalkDir::new(corpus())
        .min_depth(2)
        .max_depth(2)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.path().join("case.toml").is_file())
        .map(|e| e.into_path())
        .collect();
    cases.sort();
    assert!(cases.len() > 100, "{} cases", cases.len());
    let failures: Vec<String> = std::thread::scope(|scope| {
        let chunks: Vec<Vec<PathBuf>> = (0..4)
            .map(|i| cases.iter().skip(i).step_by(4).cloned().collect())
            .collect();
        let handles: Vec<_> = chunks
            .into_iter()
            .map(|chunk| {
                let registry = &registry;
                scope.spawn(move || {
                    chunk
                        .iter()
                        .filter_map(|dir| {
                            run_case(dir, registry).err().map(|why| {
                                let name = dir
                                    .strip_prefix(corpus())
                                    .unwrap_or(dir)
                                    .display()
                                    .to_string();
                                format!("{name}: {why}")
                            })
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("worker"))
            .collect()
    });
    assert!(
        failures.is_empty(),
        "{} of {} cases differ from upstream:\n\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n\n")
    );
}
