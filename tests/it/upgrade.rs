//! `tfsum upgrade` and `tfsum outdated` through the binary, against the fake registries:
//! relocked files equal Terraform v1.0.3's for the edited configuration, every
//! strategy, `--check`, a constraint no version satisfies (nothing written), the reports
//! in every format, and `outdated`'s table, JSON (checked against docs/outdated.md),
//! markdown and `--exit-code`. tfupdate conformance is `upgrade_corpus.rs`.

use pretty_assertions::assert_eq;
use serde_json::Value;

use crate::cli::{doc_block, requires, snapshot, Repo};
use crate::support::fake_modules::FakeModuleRegistry;
use crate::support::fake_registry::{FakeRegistry, RegistryHandle};
use crate::support::terraform::REGISTRY_PLACEHOLDER;
use crate::twin::{Twin, LOCK};

const LINUX: &str = "--platform=linux_amd64";

/// aws with two majors and a prerelease above them, null with two minors, random.
fn registry() -> FakeRegistry {
    FakeRegistry::builder()
        .provider("hashicorp", "aws")
        .version("4.67.0")
        .platforms(&["linux_amd64"])
        .version("5.30.0")
        .platforms(&["linux_amd64"])
        .version("5.31.0")
        .platforms(&["linux_amd64"])
        .version("6.0.0-beta1")
        .platforms(&["linux_amd64"])
        .provider("hashicorp", "null")
        .version("3.1.0")
        .platforms(&["linux_amd64"])
        .version("3.2.1")
        .platforms(&["linux_amd64"])
        .provider("hashicorp", "random")
        .version("3.6.0")
        .platforms(&["linux_amd64"])
        .start()
}

const PROD: &str = r#"terraform {
  required_providers {
    aws = {
      source  = "{{REGISTRY}}/hashicorp/aws"
      version = "~> 4.67"
    }
    null = { source = "{{REGISTRY}}/hashicorp/null", version = ">= 3.1" }
  }
}

module "net" {
  source = "../../modules/net"
}
"#;

const DEV: &str = r#"terraform {
  required_providers {
    aws = { source = "{{REGISTRY}}/hashicorp/aws", version = "4.67.0" } # pinned
  }
}

module "net" {
  source = "../../modules/net"
}
"#;

const OTHER: &str = r#"terraform {
  required_providers {
    random = { source = "{{REGISTRY}}/hashicorp/random", version = "3.6.0" }
  }
}
"#;

const NET: &str = r#"terraform {
  required_providers {
    aws = {
      source = "{{REGISTRY}}/hashicorp/aws"
    }
  }
}

provider "aws" {
  region  = "us-east-1" # home
  version = ">= 4.0"    # the deprecated argument
}
"#;

/// The edit in every module the roots use (a local module's provider block included,
/// its comments kept aligned), and the relock of exactly the roots whose tree changed:
/// the lock files equal what Terraform writes for the edited configuration, starting
/// from Terraform's own lock files.
#[test]
fn relocked_files_equal_terraforms() {
    let registry = registry();
    let files = [
        ("envs/prod/main.tf", PROD),
        ("envs/dev/main.tf", DEV),
        ("envs/other/main.tf", OTHER),
        ("modules/net/versions.tf", NET),
    ];
    let twin = Twin::new(&registry.handle(), &files);
    for root in ["envs/prod", "envs/dev", "envs/other"] {
        let out = twin.terraform_lock(root, &[], &["linux_amd64"]);
        assert!(out.status.success(), "{}", crate::tfsum::text(&out));
        let lock = twin.terraform_lock_file(root);
        std::fs::write(twin.tfsum_dir().join(root).join(LOCK), lock).expect("copy lock");
    }
    let other_before = twin.tfsum_lock_file("envs/other");
    let out = twin.tfsum(&["upgrade", "provider", "aws", "~> 5.30", "-r", LINUX, "."]);
    crate::tfsum::assert_ok(&out);

    let host = registry.handle().host();
    let expected = [
        (
            "envs/prod/main.tf",
            PROD.replace("\"~> 4.67\"", "\"~> 5.30\""),
        ),
        ("envs/dev/main.tf", DEV.replace("\"4.67.0\"", "\"~> 5.30\"")),
        (
            "modules/net/versions.tf",
            NET.replace("\">= 4.0\"    #", "\"~> 5.30\"   #"),
        ),
        ("envs/other/main.tf", OTHER.to_string()),
    ];
    for (file, want) in &expected {
        let got = std::fs::read_to_string(twin.tfsum_dir().join(file)).expect("read");
        assert_eq!(got, want.replace(REGISTRY_PLACEHOLDER, &host), "{file}");
        // Terraform's copy gets the same configuration.
        std::fs::write(twin.terraform_dir().join(file), got).expect("write");
    }
    // Terraform refuses `providers lock` and `init` while the lock file holds a version
    // the constraints exclude; `init -upgrade` is its way, and with every other provider
    // already at its newest allowed version it moves exactly what tfsum moves.
    for root in ["envs/prod", "envs/dev"] {
        let want = twin.init(root, true);
        let got = twin.tfsum_lock_file(root);
        assert_eq!(
            got, want,
            "{root}: tfsum (left) vs terraform init -upgrade (right)"
        );
        assert!(got.contains("version     = \"5.31.0\""), "{root}: {got}");
    }
    assert_eq!(twin.tfsum_lock_file("envs/other"), other_before);
}

/// `latest` with each strategy: the newest published stable version (the prerelease
/// above it is not one), written as the strategy says.
#[test]
fn strategies() {
    let registry = registry();
    let files = [
        ("a/main.tf", requires_one("aws", "~> 4.67")),
        ("b/main.tf", requires_one("aws", ">= 4.0, < 5.0")),
        ("c/main.tf", requires_one("aws", "4.67.0")),
    ];
    let cases = [
        ("pin", ["5.31.0", "5.31.0", "5.31.0"]),
        ("bump", ["~> 5.31", ">= 5.31, < 6.0", "5.31.0"]),
        ("widen", [">= 4.67, < 6.0", ">= 4.0, < 6.0", "5.31.0"]),
    ];
    for (strategy, want) in cases {
        let files: Vec<(&str, &str)> = files.iter().map(|(p, t)| (*p, t.as_str())).collect();
        let repo = Repo::new(&registry.handle(), &files);
        let run = repo.tfsum(&[
            "upgrade",
            "provider",
            "aws",
            "latest",
            "--strategy",
            strategy,
            "--no-lock",
            "-r",
            ".",
        ]);
        run.assert_code(0);
        for ((path, before), new) in files.iter().zip(want) {
            let old = before
                .lines()
                .find_map(|l| l.trim().strip_prefix("version = "))
                .expect("version line");
            let got = std::fs::read_to_string(repo.path().join(path)).expect("read");
            let host = registry.handle().host();
            let want = before
                .replace(old, &format!("\"{new}\""))
                .replace(REGISTRY_PLACEHOLDER, &host);
            assert_eq!(got, want, "{strategy} {path}\n{}", run.text());
        }
    }
    // A given constraint with --strategy is a usage error.
    let files: Vec<(&str, &str)> = files.iter().map(|(p, t)| (*p, t.as_str())).collect();
    let repo = Repo::new(&registry.handle(), &files);
    repo.tfsum(&[
        "upgrade",
        "provider",
        "aws",
        "5.31.0",
        "--strategy=bump",
        "-r",
        ".",
    ])
    .assert_code(2);
}

fn requires_one(name: &str, constraint: &str) -> String {
    format!(
        "terraform {{\n  required_providers {{\n    {name} = {{\n      source  = \"{REGISTRY_PLACEHOLDER}/hashicorp/{name}\"\n      version = \"{constraint}\"\n    }}\n  }}\n}}\n"
    )
}

/// Two roots, `a` and `b`, locked; `b` reaches null through a shared module.
fn locked_repo(registry: &RegistryHandle) -> Repo {
    let repo = Repo::new(
        registry,
        &[
            (
                "a/main.tf",
                &requires(&[("null", "3.1.0"), ("random", "3.6.0")]),
            ),
            (
                "modules/shared/versions.tf",
                &requires(&[("null", ">= 3.1.0")]),
            ),
            (
                "b/main.tf",
                "module \"shared\" {\n  source = \"../modules/shared\"\n}\n",
            ),
        ],
    );
    repo.tfsum(&["lock", "-r", LINUX, "."]).assert_code(0);
    repo
}

/// Every file below the repository, to prove a run wrote nothing.
fn tree(repo: &Repo) -> Vec<(String, Vec<u8>)> {
    crate::harness::snapshot(repo.path())
}

/// `--check` writes nothing and exits 1 when a constraint or a lock file would change,
/// 0 when nothing would; a constraint no published version satisfies, and a relock
/// that fails, stop the run before anything is written, naming the place.
#[test]
fn check_and_failures_write_nothing() {
    let registry = registry();
    let repo = locked_repo(&registry.handle());
    let before = tree(&repo);

    let check = repo.tfsum(&[
        "upgrade", "provider", "null", "3.2.1", "--check", "-r", LINUX, ".",
    ]);
    check.assert_code(1);
    assert!(check.stdout.contains("would edit"), "{}", check.text());
    assert!(check.stdout.contains("would update a"), "{}", check.text());
    assert_eq!(tree(&repo), before, "--check wrote");

    let same = repo.tfsum(&["upgrade", "provider", "null", "3.1.0", "--check", "a"]);
    same.assert_code(0);
    assert!(
        same.stdout.contains("no constraint to change"),
        "{}",
        same.text()
    );

    let none = repo.tfsum(&["upgrade", "provider", "null", "~> 9.0", "-r", LINUX, "."]);
    none.assert_code(1);
    assert!(
        none.stderr.contains("a/main.tf:5: no published version of")
            && none
                .stderr
                .contains("satisfies \"~> 9.0\" (newest: 3.2.1, 3.1.0)")
            && none.stderr.contains("nothing was written"),
        "{}",
        none.text()
    );
    assert_eq!(tree(&repo), before, "an unsatisfiable constraint wrote");

    // Satisfiable alone, but a module the root also uses pins the old version: the
    // relock of `c` fails, so neither its edit nor `a`'s lock file is written.
    repo.write(
        "c/main.tf",
        &format!(
            "{}\nmodule \"pinned\" {{\n  source = \"../modules/pinned\"\n}}\n",
            requires(&[("null", "3.1.0")])
        ),
    );
    repo.write(
        "modules/pinned/main.tf",
        &requires(&[("null", "3.1.0")]).replace("null =", "legacy_null ="),
    );
    let before = tree(&repo);
    let conflict = repo.tfsum(&["upgrade", "provider", "null", "3.2.1", LINUX, "a", "c"]);
    conflict.assert_code(1);
    assert!(
        conflict.stdout.contains("failed    c")
            && conflict
                .stderr
                .contains("nothing was written: 1 root could not be relocked"),
        "{}",
        conflict.text()
    );
    assert_eq!(tree(&repo), before, "a failed relock wrote");
}

/// The report in each format lists every constraint edit (file:line, old → new) beside
/// the relock's lock changes.
#[test]
fn upgrade_report() {
    let registry = registry();
    let args = ["upgrade", "provider", "null", "3.2.1", "-r", LINUX, "."];
    let mut sections = Vec::new();
    for format in ["text", "json", "markdown"] {
        let repo = locked_repo(&registry.handle());
        let mut argv = args.to_vec();
        let flag = format!("--format={format}");
        argv.push(&flag);
        let run = repo.tfsum(&argv);
        run.assert_code(0);
        let mut text = run.text();
        if format == "json" {
            let doc: Value = serde_json::from_str(&run.stdout).expect("one JSON document");
            assert_eq!(doc["edits"].as_array().map(Vec::len), Some(2), "{doc:#}");
            assert_eq!(doc["lock"]["stats"]["updated"], 2, "{doc:#}");
            text = text.replace(&run.stdout, &redact_json(&doc));
        }
        sections.push(format!("## {format}\n{text}"));
        let a = repo.lock_file("a").expect("a locked");
        assert!(a.contains("version     = \"3.2.1\""), "{a}");
    }
    snapshot("upgrade_report", &sections.join("\n"));
}

/// The JSON document with times and hashes (which vary with the fake's keys) blanked.
fn redact_json(doc: &Value) -> String {
    let text = serde_json::to_string_pretty(doc).expect("JSON");
    let re = regex::Regex::new(r#""(h1|zh):[^"]+""#).expect("pattern");
    let text = re.replace_all(&text, "\"$1:[HASH]\"").into_owned();
    let re = regex::Regex::new(r#""elapsed_ms": \d+"#).expect("pattern");
    re.replace_all(&text, "\"elapsed_ms\": \"[MS]\"")
        .into_owned()
        + "\n"
}

/// A registry module's `version`, and the relock that follows it into the new module
/// version's own requirements.
#[test]
fn module_upgrade_relocks_through_the_new_version() {
    let registry = registry();
    let handle = registry.handle();
    let null =
        |version: &str| requires_one("null", version).replace(REGISTRY_PLACEHOLDER, &handle.host());
    let modules = FakeModuleRegistry::builder()
        .module("acme", "net", "aws")
        .version("1.0.0")
        .file("versions.tf", &null("3.1.0"))
        .version("1.2.0")
        .file("versions.tf", &null("3.2.1"))
        .version("2.0.0-rc1")
        .file("versions.tf", &null("3.2.1"))
        .start();
    let source = modules.handle().source("acme", "net", "aws");
    let repo = Repo::new(
        &handle,
        &[(
            "app/main.tf",
            &format!("module \"net\" {{\n  source  = \"{source}\"\n  version = \"~> 1.0.0\"\n}}\n"),
        )],
    );
    // The package's files name the provider registry; the CLI config knows both.
    modules
        .handle()
        .write_cli_config(&repo.scratch().join("cli.tfrc"), &handle.cli_config());
    repo.tfsum(&["lock", LINUX, "app"]).assert_code(0);
    assert!(repo.lock_file("app").expect("lock").contains("\"3.1.0\""));
    let run = repo.tfsum(&[
        "upgrade",
        "module",
        &source,
        "--strategy=bump",
        LINUX,
        "app",
    ]);
    run.assert_code(0);
    let main = std::fs::read_to_string(repo.path().join("app/main.tf")).expect("read");
    assert!(
        main.contains("version = \"~> 1.2.0\""),
        "{main}\n{}",
        run.text()
    );
    let lock = repo.lock_file("app").expect("lock");
    assert!(
        lock.contains("version     = \"3.2.1\""),
        "{lock}\n{}",
        run.text()
    );
}

/// The outdated table: most behind first; JSON with exactly the fields docs/outdated.md
/// documents; markdown; `--exit-code`.
#[test]
fn outdated_reports() {
    let registry = registry();
    let modules = FakeModuleRegistry::builder()
        .module("acme", "net", "aws")
        .version("1.0.0")
        .version("1.1.0")
        .version("1.2.0")
        .version("2.0.0-rc1")
        .start();
    let source = modules.handle().source("acme", "net", "aws");
    let call =
        format!("module \"net\" {{\n  source  = \"{source}\"\n  version = \"~> 1.0.0\"\n}}\n");
    let repo = Repo::new(
        &registry.handle(),
        &[
            (
                "a/main.tf",
                &requires(&[("aws", "~> 4.67"), ("null", ">= 3.1")]),
            ),
            (
                "b/main.tf",
                &requires(&[("random", "3.6.0"), ("null", "3.1.0")]),
            ),
            ("b/net.tf", &call),
        ],
    );
    modules.handle().write_cli_config(
        &repo.scratch().join("cli.tfrc"),
        &registry.handle().cli_config(),
    );
    repo.tfsum(&["lock", "-r", LINUX, "."]).assert_code(0);
    let text = repo.tfsum(&["outdated", "-r", "."]);
    text.assert_code(0);
    let modules_host = modules.handle().host();
    let text_out = text.stdout.replace(&modules_host, "[MODULES]");
    assert!(
        text_out.contains("[MODULES]/acme/net/aws (module)  1.0.0   1.0.0    1.2.0   minor   1      b/net.tf:1 \"~> 1.0.0\""),
        "{}",
        text.text()
    );
    let lines: Vec<&str> = text.stdout.lines().collect();
    assert!(
        lines[1].starts_with("[REGISTRY]/hashicorp/aws"),
        "{}",
        text.text()
    );
    assert!(
        lines[1].contains("4.67.0") && lines[1].contains("5.31.0") && lines[1].contains("major")
    );
    let exit_code = repo.tfsum(&["outdated", "-r", "--exit-code", "."]);
    exit_code.assert_code(1);
    let json = repo.tfsum(&["outdated", "-r", "--format=json", "."]);
    json.assert_code(0);
    let doc: Value = serde_json::from_str(&json.stdout).expect("JSON");
    let documented: Value =
        serde_json::from_str(&doc_block("docs/outdated.md", "## JSON", "json")).expect("doc");
    assert!(
        same_shape(&doc, &documented),
        "{doc:#}\nversus docs/outdated.md:\n{documented:#}"
    );
    let markdown = repo.tfsum(&["outdated", "-r", "--format=markdown", "."]);
    markdown.assert_code(0);
    snapshot(
        "outdated_reports",
        &format!(
            "## text\n{}\n## json\n{}\n## markdown\n{}",
            text.text(),
            json.text(),
            markdown.text()
        )
        .replace(&modules_host, "[MODULES]"),
    );
    // Nothing behind: exit 0 even with --exit-code.
    let repo = Repo::new(
        &registry.handle(),
        &[("c/main.tf", &requires(&[("random", "3.6.0")]))],
    );
    repo.tfsum(&["lock", "-r", LINUX, "."]).assert_code(0);
    repo.tfsum(&["outdated", "-r", "--exit-code", "."])
        .assert_code(0);
}

/// Whether `actual` has exactly the object keys of `documented`, recursively; an array
/// compares its first items, and an empty one matches any.
fn same_shape(actual: &Value, documented: &Value) -> bool {
    match (actual, documented) {
        (Value::Object(a), Value::Object(d)) => {
            a.len() == d.len()
                && a.iter()
                    .all(|(k, v)| d.get(k).is_some_and(|dv| same_shape(v, dv)))
        }
        (Value::Array(a), Value::Array(d)) => match (a.first(), d.first()) {
            (Some(a), Some(d)) => same_shape(a, d),
            _ => true,
        },
        (Value::Object(_), _) | (_, Value::Object(_)) => false,
        _ => true,
    }
}
