//! Terraform Stacks against upstream's own fixtures. Every case of
//! `testdata/terraform-stacks/upstream/` is a stack configuration of hashicorp/terraform at
//! 883c7221 (`internal/stacks/stackruntime/testdata/mainbundle`,
//! `internal/stacks/stackconfig/testdata`, `internal/rpcapi/testdata/sourcebundle`, and the
//! cases of `TestCheckProviderInLockfile` written as files), copied with what it sources;
//! its `case.toml` names the files and the Go test that asserts the outcome. The corpus
//! README lists the fixtures not converted, and why.
//!
//! Each case is locked with `tfsum lock -r` (after `tfsum lock --check -r` where the case
//! says so) against the fake registry, which serves upstream's provider addresses as they
//! are (`hashicorp/testing`, `hashicorp/other`, `example.com/test/test`, …):
//!
//! - a case HCP Terraform accepts gets one lock file, in its stack directory, in the form
//!   `terraform stacks providers-lock` writes, holding the providers the Go test locks:
//!   the same bytes as Terraform 1.0.3's `providers lock` of a twin root requiring them
//!   (header swapped, `constraints` dropped). A stack with nothing to lock may get a lock
//!   file with no provider in it, or none;
//! - a case HCP Terraform refuses fails for that stack alone, its report naming the stack
//!   file, the lines upstream's diagnostics point at and the cause, and no lock file is
//!   written or changed;
//! - a known gap (tfsum differs from upstream, to be fixed in `src/`) is listed, not
//!   asserted.
//!
//! All cases run; the differences are reported together.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use tempfile::TempDir;

use crate::stacks::{copy_into, git_base, lock_files};
use crate::support::fake_modules::{FakeModuleRegistry, Location};
use crate::support::fake_registry::FakeRegistry;
use crate::support::git_http::GitServer;
use crate::support::terraform;
use crate::tf_stacks::{twin_lock, PLATFORMS, STACKS_HEADER};
use crate::tfsum;

fn corpus() -> PathBuf {
    terraform::repo_root().join("testdata/terraform-stacks/upstream")
}

/// Every provider version a case locks, or a lock file of a case names.
fn registry() -> FakeRegistry {
    let mut builder = FakeRegistry::builder();
    for (namespace, name, versions) in [
        (
            "hashicorp",
            "testing",
            &["0.1.0", "0.2.0", "1.2.0", "1.3.0", "2.0.0"][..],
        ),
        ("hashicorp", "other", &["0.1.0"][..]),
        ("other", "testing", &["0.1.0"][..]),
        ("hashicorp", "null", &["3.2.1", "3.2.4"][..]),
        // example.com/test/test: the CLI configuration sends example.com here.
        ("test", "test", &["1.0.0"][..]),
    ] {
        builder = builder.provider(namespace, name);
        for version in versions {
            builder = builder.version(version).platforms(&PLATFORMS);
        }
    }
    builder.start()
}

#[derive(serde::Deserialize)]
struct Case {
    origin: String,
    files: Vec<String>,
    asserted_by: Vec<String>,
    /// The stack directory, relative to the case.
    stack: String,
    #[serde(default)]
    git: Vec<GitRepo>,
    #[serde(default)]
    modules: Vec<Module>,
    expect: Expect,
}

/// A directory of the case served by the test git server as `{{GIT}}/REPO.git`, and not
/// copied into the work tree.
#[derive(serde::Deserialize)]
struct GitRepo {
    repo: String,
    dir: String,
}

/// A module of a fake registry standing in for `host`'s `modules.v1`.
#[derive(serde::Deserialize)]
struct Module {
    host: String,
    address: String,
    versions: Vec<ModuleVersion>,
}

#[derive(serde::Deserialize)]
struct ModuleVersion {
    version: String,
    /// The go-getter address its download answers (`{{GIT}}` replaced).
    location: String,
}

#[derive(serde::Deserialize)]
#[serde(tag = "result", rename_all = "kebab-case")]
enum Expect {
    Ok {
        providers: Vec<Locked>,
        /// Text the report must hold.
        #[serde(default)]
        said: Vec<String>,
    },
    Error {
        #[serde(default)]
        mode: Mode,
        /// The file the report names (relative to the case).
        file: String,
        /// The lines of `file` the report names, where upstream's diagnostics point.
        #[serde(default)]
        lines: Vec<u32>,
        causes: Vec<String>,
        /// For `mode = "check"`: what `tfsum lock` then writes.
        after: Option<Vec<Locked>>,
    },
    KnownGap {
        upstream: String,
        why: String,
    },
}

#[derive(serde::Deserialize, Default, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
enum Mode {
    /// `tfsum lock` fails.
    #[default]
    Lock,
    /// `tfsum lock --check` fails on the lock file the case holds.
    Check,
}

#[derive(serde::Deserialize, Clone, PartialEq, Eq, PartialOrd, Ord, Debug)]
struct Locked {
    addr: String,
    version: String,
}

/// What tfsum's report says for each cause of the corpus vocabulary: a pattern its
/// lines must match. `--check` shows the change it would make to the lock file.
fn cause_pattern(cause: &str, mode: Mode) -> Option<regex::Regex> {
    let literal = |text: &str| format!("(?m){}", regex::escape(text));
    let pattern = match (cause, mode) {
        ("missing-from-lock", Mode::Lock) => literal("Provider missing from lockfile"),
        ("missing-from-lock", Mode::Check) => r"(?m)^\s+added \S+ \S+$".to_string(),
        ("version-mismatch", Mode::Check) => r"(?m)^\s+\S+ \S+ → \S+$".to_string(),
        ("not-passed", _) => literal("Missing required provider configuration"),
        ("wrong-type", _) => literal("Invalid provider configuration"),
        ("inline-provider", _) => literal("Inline provider configuration not allowed"),
        ("undeclared-local-name", _) => literal("required_providers declare no local name"),
        ("component-registry", _) => literal("private registry of stacks"),
        ("syntax", _) => literal("syntax error"),
        _ => return None,
    };
    regex::Regex::new(&pattern).ok()
}

/// The report line of the root `dir` (`failed DIR …`, `would update DIR …`) and the
/// indented lines below it ([`crate::harness::root_report`] reads only the one-word
/// statuses of `lock`, not `--check`'s `would update`).
fn stack_report(output: &std::process::Output, dir: &str) -> String {
    let stdout = String::from_utf8_lossy(&output.stdout);
    let mut lines = stdout.lines();
    let mut found = String::new();
    while let Some(line) = lines.next() {
        if line.starts_with(' ') || !line.split_whitespace().any(|word| word == dir) {
            continue;
        }
        found.push_str(line);
        found.push('\n');
        for detail in lines.by_ref() {
            if !detail.starts_with(' ') {
                break;
            }
            found.push_str(detail);
            found.push('\n');
        }
        break;
    }
    found
}

/// The servers and scratch space all cases share.
struct Shared {
    registry: FakeRegistry,
    /// HOME and the package cache of every run.
    scratch: TempDir,
    /// Terraform 1.0.3's lock file for each set of providers, made once.
    twins: std::cell::RefCell<BTreeMap<Vec<Locked>, String>>,
}

/// A case set up in a repository of its own, its servers running.
struct Setup {
    work: TempDir,
    cli: PathBuf,
    _git: Option<GitServer>,
    _modules: Option<FakeModuleRegistry>,
}

impl Setup {
    fn new(case_dir: &Path, case: &Case, shared: &Shared, index: usize) -> Setup {
        let git = (!case.git.is_empty()).then(GitServer::start);
        let mut replacements: Vec<(&str, String)> = Vec::new();
        if let Some(git) = &git {
            replacements.push(("{{GIT}}", git_base(git)));
            for repo in &case.git {
                let handle = git.repo(&repo.repo);
                copy_into(&case_dir.join(&repo.dir), &handle.work, &replacements);
                handle.commit(&repo.dir);
            }
        }
        let modules = (!case.modules.is_empty()).then(|| {
            let mut builder = FakeModuleRegistry::builder();
            for module in &case.modules {
                let mut parts = module.address.split('/');
                let (Some(namespace), Some(name), Some(system)) =
                    (parts.next(), parts.next(), parts.next())
                else {
                    panic!("module address {}: NAMESPACE/NAME/SYSTEM", module.address);
                };
                builder = builder.module(namespace, name, system);
                for version in &module.versions {
                    let mut location = version.location.clone();
                    for (placeholder, value) in &replacements {
                        location = location.replace(placeholder, value);
                    }
                    builder = builder
                        .version(&version.version)
                        .location(Location::Given(location));
                }
            }
            builder.start()
        });
        let work = TempDir::new().expect("work");
        std::fs::create_dir(work.path().join(".git")).expect(".git");
        copy_into(case_dir, work.path(), &replacements);
        std::fs::remove_file(work.path().join("case.toml")).expect("case.toml");
        for repo in &case.git {
            std::fs::remove_dir_all(work.path().join(&repo.dir)).expect("git dir");
        }
        let cli = shared.scratch.path().join(format!("cli-{index}.tfrc"));
        std::fs::write(&cli, cli_config(&shared.registry, case, modules.as_ref())).expect("cli");
        Setup {
            work,
            cli,
            _git: git,
            _modules: modules,
        }
    }

    fn lock(&self, shared: &Shared, extra: &[&str]) -> std::process::Output {
        let platforms: Vec<String> = PLATFORMS
            .iter()
            .map(|p| format!("--platform={p}"))
            .collect();
        let mut args = vec!["lock"];
        args.extend(extra);
        args.extend(platforms.iter().map(String::as_str));
        args.extend(["-r", "."]);
        tfsum::run(self.work.path(), &self.cli, shared.scratch.path(), &args)
    }

    /// Every lock file of the work tree and its bytes.
    fn locks(&self) -> BTreeMap<String, Vec<u8>> {
        lock_files(self.work.path())
            .into_iter()
            .map(|rel| {
                let bytes = std::fs::read(self.work.path().join(&rel)).expect("read lock");
                (rel, bytes)
            })
            .collect()
    }
}

/// `registry.terraform.io` and `example.com` sent to the fake registry; `example.com`'s
/// modules to the case's module registry.
fn cli_config(
    registry: &FakeRegistry,
    case: &Case,
    modules: Option<&FakeModuleRegistry>,
) -> String {
    let providers = registry.providers_url();
    let mut out = registry.cli_config();
    out.push_str(&format!(
        "host \"registry.terraform.io\" {{\n  services = {{\n    \"providers.v1\" = \"{providers}\"\n  }}\n}}\n"
    ));
    let module_url = |host: &str| {
        let modules = modules?;
        case.modules
            .iter()
            .any(|m| m.host == host)
            .then(|| format!("    \"modules.v1\" = \"{}\"\n", modules.modules_url()))
    };
    out.push_str(&format!(
        "host \"example.com\" {{\n  services = {{\n    \"providers.v1\" = \"{providers}\"\n{}  }}\n}}\n",
        module_url("example.com").unwrap_or_default()
    ));
    out
}

/// The providers a lock file holds, by address and version.
fn locked(lock: &str) -> Vec<Locked> {
    let entry =
        regex::Regex::new(r#"provider "([^"]+)" \{\s*version\s*=\s*"([^"]+)""#).expect("regex");
    let mut out: Vec<Locked> = entry
        .captures_iter(lock)
        .map(|c| Locked {
            addr: c[1].to_string(),
            version: c[2].to_string(),
        })
        .collect();
    out.sort();
    out
}

/// The lock file of the stack in `dir`: the stacks form, holding exactly `want`, equal
/// to Terraform 1.0.3's for a twin root.
fn check_lock(
    setup: &Setup,
    shared: &Shared,
    dir: &str,
    want: &[Locked],
    said: &str,
) -> Result<(), String> {
    let path = format!("{dir}/.terraform.lock.hcl");
    let lock = std::fs::read_to_string(setup.work.path().join(&path));
    let Ok(lock) = lock else {
        if want.is_empty() {
            return Ok(());
        }
        return Err(format!("no lock file {path}:\n{said}"));
    };
    let mut want = want.to_vec();
    want.sort();
    let got = locked(&lock);
    if got != want {
        return Err(format!("{path} locks {got:?}, upstream {want:?}:\n{lock}"));
    }
    if !lock.starts_with(STACKS_HEADER) || lock.contains("constraints") {
        return Err(format!("{path} is not in the stacks form:\n{lock}"));
    }
    if want.is_empty() {
        return Ok(());
    }
    let twin = shared
        .twins
        .borrow_mut()
        .entry(want.clone())
        .or_insert_with(|| {
            let requirements: Vec<(String, String, String)> = want
                .iter()
                .map(|l| {
                    let source = l.addr.trim_start_matches("registry.terraform.io/");
                    let name = source.rsplit('/').next().unwrap_or(source);
                    (
                        name.to_string(),
                        source.to_string(),
                        format!("= {}", l.version),
                    )
                })
                .collect();
            let requirements: Vec<(&str, &str, &str)> = requirements
                .iter()
                .map(|(n, s, v)| (n.as_str(), s.as_str(), v.as_str()))
                .collect();
            twin_lock(&shared.registry, &setup.cli, &requirements)
        })
        .clone();
    if lock != twin {
        return Err(format!(
            "{path} differs from Terraform 1.0.3's for a twin root:\n--- tfsum\n{lock}--- terraform\n{twin}"
        ));
    }
    Ok(())
}

/// Lock files created or changed between `before` and `after`.
fn touched(before: &BTreeMap<String, Vec<u8>>, after: &BTreeMap<String, Vec<u8>>) -> Vec<String> {
    after
        .iter()
        .filter(|(path, bytes)| before.get(*path) != Some(bytes))
        .map(|(path, _)| path.clone())
        .collect()
}

/// Runs one case; `Err` says how tfsum differs from upstream.
fn run_case(case_dir: &Path, case: &Case, shared: &Shared, index: usize) -> Result<(), String> {
    let setup = Setup::new(case_dir, case, shared, index);
    let before = setup.locks();
    let stack_lock = format!("{}/.terraform.lock.hcl", case.stack);
    match &case.expect {
        Expect::Ok { providers, said } => {
            let out = setup.lock(shared, &[]);
            let text = tfsum::text(&out);
            if out.status.code() != Some(0) {
                return Err(format!("upstream accepts it; tfsum failed:\n{text}"));
            }
            check_lock(&setup, shared, &case.stack, providers, &text)?;
            let stray: Vec<String> = touched(&before, &setup.locks())
                .into_iter()
                .filter(|p| *p != stack_lock)
                .collect();
            if !stray.is_empty() {
                return Err(format!(
                    "lock files outside the stack directory: {stray:?}\n{text}"
                ));
            }
            for want in said {
                if !text.contains(want.as_str()) {
                    return Err(format!("the report should say {want:?}:\n{text}"));
                }
            }
            Ok(())
        }
        Expect::Error {
            mode,
            file,
            lines,
            causes,
            after,
        } => {
            let extra: &[&str] = match mode {
                Mode::Lock => &[],
                Mode::Check => &["--check"],
            };
            let out = setup.lock(shared, extra);
            let text = tfsum::text(&out);
            if out.status.code() != Some(1) {
                return Err(format!(
                    "upstream refuses it ({causes:?}); tfsum exited {:?}:\n{text}",
                    out.status.code()
                ));
            }
            let report = stack_report(&out, &case.stack);
            let verdict = match mode {
                Mode::Lock => "failed ",
                Mode::Check => "would update ",
            };
            if !report.starts_with(verdict) {
                return Err(format!(
                    "the stack {} should be reported as {verdict:?}:\n{text}",
                    case.stack
                ));
            }
            if !text.contains(file.as_str()) {
                return Err(format!("the report should name {file}:\n{text}"));
            }
            for line in lines {
                let at = format!("{file}:{line}:");
                if !report.contains(&at) {
                    return Err(format!("the report should point at {at}:\n{report}"));
                }
            }
            for cause in causes {
                let Some(pattern) = cause_pattern(cause, *mode) else {
                    return Err(format!("cause {cause:?} is not in the vocabulary"));
                };
                if !pattern.is_match(&report) {
                    return Err(format!(
                        "upstream's cause is {cause}; tfsum said:\n{report}"
                    ));
                }
            }
            let changed = touched(&before, &setup.locks());
            if !changed.is_empty() {
                return Err(format!(
                    "a refused stack writes no lock file: {changed:?}\n{text}"
                ));
            }
            if let Some(after) = after {
                let out = setup.lock(shared, &[]);
                let text = tfsum::text(&out);
                if out.status.code() != Some(0) {
                    return Err(format!("`tfsum lock` after `--check` failed:\n{text}"));
                }
                check_lock(&setup, shared, &case.stack, after, &text)?;
            }
            Ok(())
        }
        Expect::KnownGap { .. } => Ok(()),
    }
}

/// Every case of the corpus, as upstream decides it. All run; differences are reported
/// together, and known gaps listed.
#[test]
fn upstream_terraform_stack_cases() {
    let shared = Shared {
        registry: registry(),
        scratch: TempDir::new().expect("scratch"),
        twins: Default::default(),
    };
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(corpus())
        .expect("corpus")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.join("case.toml").is_file())
        .collect();
    dirs.sort();
    assert!(dirs.len() >= 100, "{} cases", dirs.len());
    let mut failures = Vec::new();
    let mut gaps = Vec::new();
    let mut results: BTreeMap<&'static str, usize> = BTreeMap::new();
    for (index, dir) in dirs.iter().enumerate() {
        let name = dir
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let text = std::fs::read_to_string(dir.join("case.toml")).expect("case.toml");
        let case: Case = match toml::from_str(&text) {
            Ok(case) => case,
            Err(e) => {
                failures.push(format!("{name}: case.toml: {e}"));
                continue;
            }
        };
        if !case.origin.starts_with("hashicorp/terraform@") || case.asserted_by.is_empty() {
            failures.push(format!(
                "{name}: case.toml must cite its origin and the Go test"
            ));
        }
        let cited: BTreeSet<&str> = case.files.iter().map(String::as_str).collect();
        if cited.is_empty() && !name.starts_with("stackeval.") {
            failures.push(format!("{name}: case.toml lists no upstream file"));
        }
        let kind = match &case.expect {
            Expect::Ok { .. } => "succeed",
            Expect::Error { .. } => "fail",
            Expect::KnownGap { upstream, why } => {
                gaps.push(format!("{name} (upstream: {upstream}): {why}"));
                "known gap"
            }
        };
        *results.entry(kind).or_default() += 1;
        if let Err(why) = run_case(dir, &case, &shared, index) {
            failures.push(format!("{name}: {why}"));
        }
    }
    println!("{} cases: {results:?}", dirs.len());
    for gap in &gaps {
        println!("known gap, not asserted: {gap}");
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases differ from upstream:\n\n{}",
        failures.len(),
        dirs.len(),
        failures.join("\n\n")
    );
}
