//! Terragrunt units (issue 8) against the oracle: the lock file tfsum writes next to each
//! unit's `terragrunt.hcl` must equal what Terraform v1.0.3 `providers lock` writes in the
//! directory Terragrunt would run Terraform in — the unit's *effective configuration*.
//!
//! The test builds that directory itself, from Terragrunt's documented behaviour rather
//! than from tfsum's model of it: copy the source (all of it for the `//` form, which
//! then names the subdirectory to run in), copy the unit directory's `.tf` files over it,
//! and write each `generate` block's `contents`. The fixture is
//! `testdata/repos/terragrunt/` (see its README for what each unit exercises).

use std::path::Path;

use pretty_assertions::assert_eq;
use tempfile::TempDir;

use crate::harness::{self, root_report, Repo};
use crate::resolution::{provider_block, providers_and_versions, registry, PLATFORMS};
use crate::support::terraform;
use crate::tfsum;

const FIXTURE: &str = "repos/terragrunt";

/// How Terragrunt lays out one unit's working directory.
struct Unit {
    /// The unit directory, relative to the repository.
    dir: &'static str,
    /// What the source copies: a repository-relative directory.
    copy: &'static str,
    /// The `//` subdirectory Terraform runs in ("" for the top).
    subdir: &'static str,
    /// The file whose `generate "versions"` block wins, if any.
    generate: Option<&'static str>,
}

const UNITS: &[Unit] = &[
    // root.hcl: source = "${get_repo_root()}/modules//${path_relative_to_include()}".
    Unit {
        dir: "live/app",
        copy: "modules",
        subdir: "app",
        generate: Some("live/root.hcl"),
    },
    // Its own source "../../modules//db?ref=v1.2.3" and its own generate block.
    Unit {
        dir: "live/db",
        copy: "modules",
        subdir: "db",
        generate: Some("live/db/terragrunt.hcl"),
    },
    Unit {
        dir: "live/plain",
        copy: "live/plain",
        subdir: "",
        generate: Some("live/plain/terragrunt.hcl"),
    },
    // "../../modules/vpc" plus the unit's own providers.tf.
    Unit {
        dir: "live/relative",
        copy: "modules/vpc",
        subdir: "",
        generate: None,
    },
];

#[test]
fn every_unit_matches_terraform_in_its_effective_configuration() {
    let registry = registry();
    let host = registry.host();
    let scratch = TempDir::new().unwrap();
    let cli_config = scratch.path().join("cli.tfrc");
    std::fs::write(&cli_config, crate::twin::cli_config(&registry)).unwrap();
    let repo = terraform::conformance_dir(FIXTURE, &host);
    // get_repo_root() looks for .git upwards.
    std::fs::create_dir(repo.path().join(".git")).unwrap();
    let pristine = terraform::conformance_dir(FIXTURE, &host);

    let mut args = vec!["lock".to_string(), "-r".to_string()];
    args.extend(PLATFORMS.iter().map(|p| format!("--platform={p}")));
    args.push(".".to_string());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = tfsum::run(repo.path(), &cli_config, scratch.path(), &args);
    let text = tfsum::text(&out);

    // The malformed unit fails the run, and so does the git unit whose server is down,
    // naming its source.
    assert_eq!(out.status.code(), Some(1), "{text}");
    for needle in [
        "live/broken/terragrunt.hcl:",
        "live/git/terragrunt.hcl: terraform.source \"git::http://127.0.0.1:1/acme/modules.git//vpc?ref=v1.0.0\"",
    ] {
        assert!(text.contains(needle), "missing {needle:?} in:\n{text}");
    }
    let locked = crate::twin::lock_dirs(repo.path());
    let mut want_locked: Vec<&str> = UNITS.iter().map(|u| u.dir).collect();
    // A unit source with a backend is a plain root as well.
    want_locked.push("modules/vpc");
    assert_eq!(locked, want_locked, "{text}");

    let mut locks = Vec::new();
    for unit in UNITS {
        let work = effective_configuration(pristine.path(), unit);
        let dir = work.path().join(unit.subdir);
        let get = terraform::run(&dir, &cli_config, &["get", "-no-color"]);
        terraform::assert_success(&get, &format!("terraform get for {}", unit.dir));
        let lock = terraform::providers_lock(&dir, PLATFORMS, &cli_config);
        terraform::assert_success(&lock, &format!("terraform providers lock for {}", unit.dir));
        let want = terraform::read_lock_file(&dir);
        let got = terraform::read_lock_file(&repo.path().join(unit.dir));
        assert_eq!(got, want, "{}: tfsum (left) vs Terraform (right)", unit.dir);
        locks.push(got);
    }

    // What each unit's lock says, so a wrong oracle setup cannot pass unnoticed.
    let fake = |name: &str| format!("{host}/hashicorp/{name}");
    let versions = |lock: &str| -> Vec<(String, String)> { providers_and_versions(lock) };
    assert_eq!(
        versions(&locks[0]),
        [
            (fake("null"), "3.2.1".to_string()),
            (fake("random"), "3.6.0".to_string()),
        ]
    );
    assert_eq!(versions(&locks[1]), [(fake("tls"), "4.0.4".to_string())]);
    assert_eq!(versions(&locks[2]), [(fake("local"), "2.5.1".to_string())]);
    assert_eq!(
        versions(&locks[3]),
        [
            (fake("aws"), "5.32.0".to_string()),
            (
                "registry.terraform.io/hashicorp/local".to_string(),
                "2.5.1".to_string()
            ),
        ]
    );
    assert!(provider_block(&locks[1], &fake("tls")).contains("constraints = \"< 4.0.5\""));

    // modules/vpc as a root of its own: just its own files, not live/relative's.
    let vpc = pristine.path().join("modules/vpc");
    let out = terraform::providers_lock(&vpc, PLATFORMS, &cli_config);
    terraform::assert_success(&out, "terraform providers lock in modules/vpc");
    let want = terraform::read_lock_file(&vpc);
    let got = terraform::read_lock_file(&repo.path().join("modules/vpc"));
    assert_eq!(got, want, "modules/vpc: tfsum (left) vs Terraform (right)");
    assert_eq!(versions(&got), [(fake("aws"), "5.32.0".to_string())]);
}

/// A temporary directory laid out as Terragrunt's working copy of `unit`.
fn effective_configuration(repo: &Path, unit: &Unit) -> TempDir {
    let work = TempDir::new().unwrap();
    copy_dir(&repo.join(unit.copy), work.path());
    let run_dir = work.path().join(unit.subdir);
    // Terragrunt copies the unit directory's files over the module's.
    for entry in std::fs::read_dir(repo.join(unit.dir)).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "tf") {
            std::fs::copy(&path, run_dir.join(path.file_name().unwrap())).unwrap();
        }
    }
    if let Some(file) = unit.generate {
        let hcl = std::fs::read_to_string(repo.join(file)).unwrap();
        std::fs::write(
            run_dir.join("versions.tf"),
            generate_contents(&hcl, "versions"),
        )
        .unwrap();
    }
    work
}

/// The `contents = <<EOF … EOF` heredoc of `generate "LABEL"` in a Terragrunt file.
fn generate_contents(hcl: &str, label: &str) -> String {
    let block = hcl
        .find(&format!("generate \"{label}\""))
        .map(|at| &hcl[at..])
        .unwrap_or_else(|| panic!("no generate {label:?} in:\n{hcl}"));
    let start = block.find("<<EOF\n").expect("a <<EOF heredoc") + "<<EOF\n".len();
    let len = block[start..].find("\nEOF\n").expect("the heredoc's end") + 1;
    block[start..start + len].to_string()
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Terragrunt files that would recurse forever (issue "Safe on an untrusted checkout"): a
/// unit whose locals read its own file, two files that read each other, a unit that
/// includes itself. Each fails alone, naming the chain of files; a unit whose reads fan out
/// exponentially (4 reads of the next file, 12 files deep) is locked in linear time; every
/// other unit and root is still locked and the run exits 1.
#[test]
fn recursive_terragrunt_units_fail_alone() {
    let registry = harness::registry();
    let random = harness::main_tf(&[("random", "3.6.0")]);
    let read = |name: &str, file: &str| format!("  {name} = read_terragrunt_config(\"{file}\")\n");
    let locals = |body: &str| format!("locals {{\n{body}}}\n");
    let mut files: Vec<(String, String)> = vec![
        ("plain/main.tf".into(), random.clone()),
        ("good/main.tf".into(), random.clone()),
        (
            "good/terragrunt.hcl".into(),
            locals(&read("env", "env.hcl")),
        ),
        ("good/env.hcl".into(), locals("  name = \"prod\"\n")),
        ("self/main.tf".into(), random.clone()),
        (
            "self/terragrunt.hcl".into(),
            locals(&read("me", "terragrunt.hcl")),
        ),
        ("pingpong/main.tf".into(), random.clone()),
        (
            "pingpong/terragrunt.hcl".into(),
            locals(&read("common", "common.hcl")),
        ),
        (
            "pingpong/common.hcl".into(),
            locals(&read("back", "terragrunt.hcl")),
        ),
        // No configuration of its own: a unit only because nothing else includes it.
        (
            "selfinclude/terragrunt.hcl".into(),
            "include \"self\" {\n  path = \"terragrunt.hcl\"\n}\n".into(),
        ),
        ("fanout/main.tf".into(), random.clone()),
    ];
    for level in 0..12 {
        let this = match level {
            0 => "fanout/terragrunt.hcl".to_string(),
            n => format!("fanout/f{n}.hcl"),
        };
        let next = format!("f{}.hcl", level + 1);
        let body: String = (0..4).map(|i| read(&format!("r{i}"), &next)).collect();
        files.push((this, locals(&body)));
    }
    files.push(("fanout/f12.hcl".into(), locals("  leaf = true\n")));
    let files: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, c)| (p.as_str(), c.as_str()))
        .collect();
    let repo = Repo::new(&registry, &files);

    let out = repo.lock_all(&["linux_amd64"], &[], &[]);
    let text = harness::text(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    for unit in ["plain", "good", "fanout"] {
        assert!(
            root_report(&out, unit).starts_with("created"),
            "{unit}:\n{text}"
        );
    }
    let failed = [
        (
            "self",
            "self/terragrunt.hcl:2: read_terragrunt_config cycle: self/terragrunt.hcl:2 → self/terragrunt.hcl",
        ),
        (
            "pingpong",
            "pingpong/common.hcl:2: read_terragrunt_config cycle: pingpong/terragrunt.hcl:2 → pingpong/common.hcl:2 → pingpong/terragrunt.hcl",
        ),
        (
            "selfinclude",
            "selfinclude/terragrunt.hcl:1: include cycle: selfinclude/terragrunt.hcl includes itself",
        ),
    ];
    for (unit, message) in failed {
        let report = root_report(&out, unit);
        assert!(report.starts_with("failed"), "{unit}:\n{text}");
        assert!(
            report.contains(message),
            "{unit}: {message:?} missing from\n{report}"
        );
    }
}
