//! The vendored hcl-edit (`vendor/README.md`) is the parser behind `hcl::parse` too.
//!
//! `[patch.crates-io]` only replaces hcl-edit for dependents whose version requirement the
//! copy satisfies: an hcl-rs release built on a newer hcl-edit would quietly bring the
//! unpatched parser back for Terragrunt files and the CLI configuration. These tests fail
//! then: once through the behaviour (each fix's repro, parsed the way tfsum parses with
//! hcl-rs) and once through the dependency graph in the lock files.

use std::path::Path;

use serde::Deserialize;
use serde_json::{json, Value};

use crate::support::terraform::repo_root;

/// What a repro must give with the fixes: its body evaluated as Terraform evaluates it, or a
/// syntax error on the given line whose message contains the given text.
enum Expected {
    Value(Value),
    Error { line: usize, message: &'static str },
}

/// One minimal input per change of `vendor/README.md`, in the order of its table. hcl-edit
/// 0.10.0 from crates.io rejects each of them but the fifth, and misreads the fourth and fifth.
fn repros() -> Vec<(&'static str, Expected)> {
    vec![
        (
            "a = { b = 1, b = 2 }\n",
            Expected::Value(json!({"a": {"b": 2}})),
        ),
        (
            "a = { for k, v in m : k => v\n  + 1 }\n",
            Expected::Value(json!({"a": {"p": 2}})),
        ),
        (
            "a = \"%{ if n\n  == 1 }y%{ endif }\"\n",
            Expected::Value(json!({"a": "y"})),
        ),
        (
            "a = <<EOT\nEOT\nb = <<EOT\nEOT\n",
            Expected::Value(json!({"a": "", "b": ""})),
        ),
        (
            "a = \"x\ny\"\n",
            Expected::Error {
                line: 1,
                message: "quoted strings cannot span lines",
            },
        ),
        ("a = (!\n  t)\n", Expected::Value(json!({"a": false}))),
        ("# a\rb\nx = 1\n", Expected::Value(json!({"x": 1}))),
    ]
}

/// The variables the repros read.
fn context() -> hcl::eval::Context<'static> {
    let mut ctx = hcl::eval::Context::new();
    ctx.declare_var("m", hcl::value!({ p = 1 }));
    ctx.declare_var("n", 1);
    ctx.declare_var("t", true);
    ctx
}

#[test]
fn hcl_rs_parses_each_repro_with_the_fixes() {
    let readme = read(&repo_root().join("vendor/README.md"));
    let ctx = context();
    for (input, expected) in repros() {
        // The README shows each repro as this literal: keep the two in step.
        let literal = format!("`{input:?}`");
        assert!(
            readme.contains(&literal),
            "vendor/README.md lacks {literal}"
        );

        let parsed = hcl::parse(input);
        match expected {
            Expected::Value(want) => {
                let body = parsed.unwrap_or_else(|e| panic!("{input:?}: {e}"));
                let evaluated = hcl::eval::Evaluate::evaluate(&body, &ctx)
                    .unwrap_or_else(|e| panic!("{input:?}: {e}"));
                let got: Value =
                    hcl::from_body(evaluated).unwrap_or_else(|e| panic!("{input:?}: {e}"));
                assert_eq!(got, want, "{input:?}");
            }
            Expected::Error { line, message } => match parsed {
                Err(hcl::Error::Parse(e)) => {
                    assert_eq!(e.location().line(), line, "{input:?}: {e}");
                    assert!(e.message().contains(message), "{input:?}: {e}");
                }
                other => panic!("{input:?}: expected a syntax error, got {other:?}"),
            },
        }
    }
}

/// The parts of a `Cargo.lock` the check reads.
#[derive(Clone, Deserialize)]
struct Lock {
    package: Vec<LockedPackage>,
}

impl Lock {
    fn named(&self, name: &str) -> Vec<&LockedPackage> {
        self.package.iter().filter(|p| p.name == name).collect()
    }
}

#[derive(Clone, Deserialize)]
struct LockedPackage {
    name: String,
    version: String,
    /// Absent for path dependencies such as the vendored copy.
    source: Option<String>,
    #[serde(default)]
    dependencies: Vec<String>,
}

/// Checks that `lock` resolves hcl-rs to the vendored hcl-edit `version`, the only hcl-edit
/// in the graph; the error says what the lock has instead.
fn uses_vendored_hcl_edit(lock: &Lock, version: &str) -> Result<(), String> {
    let copies = lock.named("hcl-edit");
    let [copy] = copies.as_slice() else {
        let found: Vec<String> = copies
            .iter()
            .map(|p| {
                format!(
                    "{} from {}",
                    p.version,
                    p.source.as_deref().unwrap_or("path")
                )
            })
            .collect();
        return Err(format!("expected one hcl-edit, found {found:?}"));
    };
    if let Some(source) = &copy.source {
        return Err(format!(
            "hcl-edit {} comes from {source}, not vendor/hcl-edit",
            copy.version
        ));
    }
    if copy.version != version {
        return Err(format!(
            "hcl-edit {} is not the vendored {version}",
            copy.version
        ));
    }
    let hcl_rs = lock.named("hcl-rs");
    let [hcl_rs] = hcl_rs.as_slice() else {
        return Err(format!("expected one hcl-rs, found {}", hcl_rs.len()));
    };
    if !hcl_rs.dependencies.iter().any(|d| is_hcl_edit(d)) {
        return Err(format!(
            "hcl-rs {} does not depend on hcl-edit",
            hcl_rs.version
        ));
    }
    Ok(())
}

/// A lock file's dependency entry is "name", "name version" or "name version (source)".
fn is_hcl_edit(dependency: &str) -> bool {
    dependency.split(' ').next() == Some("hcl-edit")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn read_lock(path: &Path) -> Lock {
    toml::from_str(&read(path)).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The version of the vendored crate, from its manifest.
fn vendored_version() -> String {
    #[derive(Deserialize)]
    struct Manifest {
        package: Package,
    }
    #[derive(Deserialize)]
    struct Package {
        version: String,
    }
    let path = repo_root().join("vendor/hcl-edit/Cargo.toml");
    let manifest: Manifest =
        toml::from_str(&read(&path)).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    manifest.package.version
}

/// Cargo.lock is the resolution this very test binary was built from (cargo brings it up to
/// date before building); fuzz/ is a workspace of its own with its own lock and patch.
#[test]
fn hcl_rs_resolves_to_the_vendored_copy() {
    let version = vendored_version();
    for lock in ["Cargo.lock", "fuzz/Cargo.lock"] {
        let path = repo_root().join(lock);
        if let Err(e) = uses_vendored_hcl_edit(&read_lock(&path), &version) {
            panic!("{lock}: {e}; see vendor/README.md");
        }
    }
}

/// The check above fails on the graphs a bypassed patch gives.
#[test]
fn the_lock_check_rejects_a_bypassed_patch() {
    let version = vendored_version();
    let lock = read_lock(&repo_root().join("Cargo.lock"));
    let registry = "registry+https://github.com/rust-lang/crates.io-index";

    // An hcl-rs that needs a newer hcl-edit: it gets the registry's, tfsum keeps the copy.
    let mut newer = lock.clone();
    newer.package.push(LockedPackage {
        name: "hcl-edit".into(),
        version: "0.11.0".into(),
        source: Some(registry.into()),
        dependencies: Vec::new(),
    });
    for package in newer.package.iter_mut().filter(|p| p.name == "hcl-rs") {
        for dep in package.dependencies.iter_mut().filter(|d| is_hcl_edit(d)) {
            *dep = format!("hcl-edit 0.11.0 ({registry})");
        }
    }
    // No patch at all: the one hcl-edit is the registry's.
    let mut unpatched = lock.clone();
    for package in unpatched
        .package
        .iter_mut()
        .filter(|p| p.name == "hcl-edit")
    {
        package.source = Some(registry.into());
    }
    // hcl-rs on a parser of its own.
    let mut detached = lock;
    for package in detached.package.iter_mut().filter(|p| p.name == "hcl-rs") {
        package.dependencies.retain(|d| !is_hcl_edit(d));
    }

    for (case, lock) in [
        ("newer", newer),
        ("unpatched", unpatched),
        ("detached", detached),
    ] {
        assert!(uses_vendored_hcl_edit(&lock, &version).is_err(), "{case}");
    }
}
