//! Module sources and versions from variables, end to end through the `tfsum` binary:
//! where values come from and in which order (`TF_VAR_*` < `terraform.tfvars` <
//! `*.auto.tfvars` < `.tfsum.toml`'s `var_files` < `--var`/`--var-file` in order, as
//! Terraform's `internal/command/arguments/vars.go` collects them), a root that cannot
//! know its source failing alone, changed-files mode following var files, `outdated`
//! naming where a version is written and `upgrade` editing it, Terraform 1.14 `action`
//! blocks, Terragrunt inputs, and Terraform 1.0.3 agreeing with every lock written from
//! an evaluated source.

use std::path::Path;

use serde_json::Value;
use tempfile::TempDir;

use crate::support::fake_registry::FakeRegistry;
use crate::support::git_http::GitServer;
use crate::support::terraform;
use crate::tfsum;

/// A provider registry and one git repository, `iam`, whose tag v1.0.0 requires
/// hashicorp/null and v2.0.0 hashicorp/random: the lock file tells which was called.
struct World {
    _registry: FakeRegistry,
    git: GitServer,
    scratch: TempDir,
}

const VARIABLE: &str =
    "variable \"ref\" {\n  type    = string\n  const   = true\n  default = \"v1.0.0\"\n}\n";

fn requires(name: &str, version: &str) -> String {
    format!(
        "terraform {{\n  required_providers {{\n    {name} = {{\n      source  = \"hashicorp/{name}\"\n      version = \"{version}\"\n    }}\n  }}\n}}\n"
    )
}

impl World {
    fn start() -> World {
        let registry = FakeRegistry::builder()
            .provider("hashicorp", "null")
            .version("3.2.1")
            .provider("hashicorp", "random")
            .version("3.6.0")
            .start();
        let git = GitServer::start();
        let repo = git.repo("iam");
        repo.write("main.tf", &requires("null", "3.2.1"));
        repo.commit("v1");
        repo.tag("v1.0.0");
        repo.write("main.tf", &requires("random", "3.6.0"));
        repo.commit("v2");
        repo.tag("v2.0.0");
        let scratch = TempDir::new().expect("scratch");
        let cli = format!(
            "{}host \"registry.terraform.io\" {{\n  services = {{\n    \"providers.v1\" = \"{}\"\n  }}\n}}\n",
            registry.cli_config(),
            registry.providers_url()
        );
        std::fs::write(scratch.path().join("cli.tfrc"), cli).expect("cli config");
        World {
            _registry: registry,
            git,
            scratch,
        }
    }

    fn source(&self) -> String {
        format!("git::{}", self.git.url("iam"))
    }

    /// A root calling `iam` at `?ref=${var.ref}`.
    fn dynamic_root(&self) -> String {
        format!(
            "{VARIABLE}module \"iam\" {{\n  source = \"{}?ref=${{var.ref}}\"\n}}\n",
            self.source()
        )
    }

    /// The same root with the ref written out, for Terraform 1.0.3.
    fn literal_root(&self, reference: &str) -> String {
        format!(
            "module \"iam\" {{\n  source = \"{}?ref={reference}\"\n}}\n",
            self.source()
        )
    }

    fn cli(&self) -> std::path::PathBuf {
        self.scratch.path().join("cli.tfrc")
    }

    fn tfsum(&self, dir: &Path, args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
        let scratch = TempDir::new().expect("scratch");
        let mut all = args.to_vec();
        if matches!(args.first(), Some(&"lock" | &"upgrade")) {
            all.push("--platform=linux_amd64");
        }
        tfsum::run_with(dir, &self.cli(), scratch.path(), &all, env)
    }

    /// Terraform 1.0.3's lock file for a root holding `main_tf`.
    fn terraform_lock(&self, main_tf: &str) -> String {
        let dir = TempDir::new().expect("terraform dir");
        std::fs::write(dir.path().join("main.tf"), main_tf).expect("main.tf");
        let get = terraform::run(dir.path(), &self.cli(), &["get", "-no-color"]);
        terraform::assert_success(&get, "terraform get");
        let lock = terraform::providers_lock(dir.path(), &["linux_amd64"], &self.cli());
        terraform::assert_success(&lock, "terraform providers lock");
        terraform::read_lock_file(dir.path())
    }
}

fn write(dir: &Path, files: &[(&str, &str)]) {
    for (name, text) in files {
        let path = dir.join(name);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }
}

fn lock_of(dir: &Path) -> String {
    std::fs::read_to_string(dir.join(".terraform.lock.hcl")).unwrap_or_default()
}

/// Which of the two tags a lock file's provider shows was installed.
fn called(lock: &str) -> &'static str {
    match (
        lock.contains("hashicorp/null"),
        lock.contains("hashicorp/random"),
    ) {
        (true, false) => "v1.0.0",
        (false, true) => "v2.0.0",
        _ => "neither",
    }
}

/// Every place a value can come from, alone and against the others, in Terraform's
/// order; and the lock file written from the evaluated source is Terraform 1.0.3's for
/// the same source written out.
#[test]
fn values_reach_module_sources_in_terraform_order() {
    let world = World::start();
    // (what, files in the root, flags, environment, the tag installed)
    type Case<'a> = (
        &'a str,
        &'a [(&'a str, &'a str)],
        &'a [&'a str],
        &'a [(&'a str, &'a str)],
        &'a str,
    );
    let cases: &[Case] = &[
        ("the default", &[], &[], &[], "v1.0.0"),
        (
            "TF_VAR_ref",
            &[],
            &[],
            &[("TF_VAR_ref", "v2.0.0")],
            "v2.0.0",
        ),
        (
            "terraform.tfvars over TF_VAR_ref",
            &[("terraform.tfvars", "ref = \"v1.0.0\"\n")],
            &[],
            &[("TF_VAR_ref", "v2.0.0")],
            "v1.0.0",
        ),
        (
            "terraform.tfvars.json over terraform.tfvars",
            &[
                ("terraform.tfvars", "ref = \"v1.0.0\"\n"),
                ("terraform.tfvars.json", "{\"ref\": \"v2.0.0\"}\n"),
            ],
            &[],
            &[],
            "v2.0.0",
        ),
        (
            "*.auto.tfvars in name order, over terraform.tfvars",
            &[
                ("terraform.tfvars", "ref = \"v1.0.0\"\n"),
                ("a.auto.tfvars", "ref = \"v1.0.0\"\n"),
                ("b.auto.tfvars", "ref = \"v2.0.0\"\n"),
            ],
            &[],
            &[],
            "v2.0.0",
        ),
        (
            "--var over the files",
            &[("b.auto.tfvars", "ref = \"v2.0.0\"\n")],
            &["--var", "ref=v1.0.0"],
            &[],
            "v1.0.0",
        ),
        (
            "--var then --var-file: the file is later",
            &[("x.tfvars", "ref = \"v2.0.0\"\n")],
            &["--var", "ref=v1.0.0", "--var-file", "x.tfvars"],
            &[],
            "v2.0.0",
        ),
        (
            "--var-file then --var: the flag is later",
            &[("x.tfvars", "ref = \"v2.0.0\"\n")],
            &["--var-file", "x.tfvars", "--var", "ref=v1.0.0"],
            &[],
            "v1.0.0",
        ),
    ];
    for (name, files, args, env, want) in cases {
        let dir = TempDir::new().expect("root");
        write(dir.path(), &[("main.tf", &world.dynamic_root())]);
        write(dir.path(), files);
        let mut all = vec!["lock"];
        all.extend(*args);
        all.push(".");
        let out = world.tfsum(dir.path(), &all, env);
        assert!(out.status.success(), "{name}: {}", tfsum::text(&out));
        assert_eq!(called(&lock_of(dir.path())), *want, "{name}");
    }
    for reference in ["v1.0.0", "v2.0.0"] {
        let dir = TempDir::new().expect("root");
        write(dir.path(), &[("main.tf", &world.dynamic_root())]);
        let var = format!("ref={reference}");
        let out = world.tfsum(dir.path(), &["lock", "--var", &var, "."], &[]);
        assert!(out.status.success(), "{}", tfsum::text(&out));
        assert_eq!(
            lock_of(dir.path()),
            world.terraform_lock(&world.literal_root(reference)),
            "{reference}: tfsum (left) vs Terraform 1.0.3 on the literal source (right)"
        );
    }
}

/// A source that cannot be known fails its root alone, with the file, line, variable and
/// rule, in the text and the JSON report alike; a `--var` for a variable a root does not
/// declare is ignored there; the other roots are written.
#[test]
fn a_source_that_cannot_be_known_fails_its_root_alone() {
    let world = World::start();
    let dir = TempDir::new().expect("repo");
    let not_const = format!(
        "variable \"ref\" {{\n  default = \"v1.0.0\"\n}}\nmodule \"iam\" {{\n  source = \"{}?ref=${{var.ref}}\"\n}}\n",
        world.source()
    );
    let required = format!(
        "variable \"ref\" {{\n  const = true\n}}\nmodule \"iam\" {{\n  source = \"{}?ref=${{var.ref}}\"\n}}\n",
        world.source()
    );
    write(
        dir.path(),
        &[
            ("plain/main.tf", &requires("null", "3.2.1")),
            ("not-const/main.tf", &not_const),
            ("required/main.tf", &required),
        ],
    );
    let out = world.tfsum(
        dir.path(),
        &["lock", "-r", "--format=json", "--var", "other=1", "."],
        &[],
    );
    assert_eq!(out.status.code(), Some(1), "{}", tfsum::text(&out));
    assert!(lock_of(&dir.path().join("plain")).contains("hashicorp/null"));
    assert!(!dir.path().join("not-const/.terraform.lock.hcl").exists());
    assert!(!dir.path().join("required/.terraform.lock.hcl").exists());
    let report: Value = serde_json::from_slice(&out.stdout).expect("JSON report");
    let text = report.to_string();
    for want in [
        "not-const/main.tf:5: module \\\"iam\\\": source: its value is not known during init: `var.ref` is not declared `const = true`",
        "no value for required variable \\\"ref\\\" (declared at required/main.tf:1): give it with `--var ref=…`, `TF_VAR_ref` or a `.tfvars` file",
    ] {
        assert!(text.contains(want), "{want}\nnot in {report:#}");
    }
    let out = world.tfsum(dir.path(), &["lock", "-r", "."], &[]);
    let said = tfsum::text(&out);
    assert!(said.contains("is not declared `const = true`"), "{said}");
}

/// `.tfsum.toml`'s `[[var_files]]` gives the roots it matches their values, below
/// `--var`; changed-files mode relocks the roots a changed var file feeds, in the root
/// or assigned from elsewhere, and leaves the others alone.
#[test]
fn var_files_assigned_in_settings_and_changed_files_mode() {
    let world = World::start();
    let dir = TempDir::new().expect("repo");
    std::fs::create_dir(dir.path().join(".git")).expect(".git");
    let settings = "[[var_files]]\nroots = \"^envs/prod$\"\nfiles = [\"vars/prod.tfvars\"]\n";
    write(
        dir.path(),
        &[
            (".tfsum.toml", settings),
            ("vars/prod.tfvars", "ref = \"v2.0.0\"\n"),
            ("envs/prod/main.tf", &world.dynamic_root()),
            ("envs/staging/main.tf", &world.dynamic_root()),
        ],
    );
    let out = world.tfsum(dir.path(), &["lock", "-r", "."], &[]);
    assert!(out.status.success(), "{}", tfsum::text(&out));
    let prod = dir.path().join("envs/prod");
    let staging = dir.path().join("envs/staging");
    assert_eq!(called(&lock_of(&prod)), "v2.0.0");
    assert_eq!(called(&lock_of(&staging)), "v1.0.0");

    // The assigned file changes: only prod is relocked, from the file as it is now.
    write(dir.path(), &[("vars/prod.tfvars", "ref = \"v1.0.0\"\n")]);
    std::fs::remove_file(staging.join(".terraform.lock.hcl")).expect("rm");
    let out = world.tfsum(dir.path(), &["lock", "vars/prod.tfvars"], &[]);
    assert!(out.status.success(), "{}", tfsum::text(&out));
    assert_eq!(called(&lock_of(&prod)), "v1.0.0");
    assert!(
        !staging.join(".terraform.lock.hcl").exists(),
        "staging is not fed by it"
    );

    // A root's own terraform.tfvars is part of the root.
    write(
        dir.path(),
        &[("envs/staging/terraform.tfvars", "ref = \"v2.0.0\"\n")],
    );
    let out = world.tfsum(dir.path(), &["lock", "envs/staging/terraform.tfvars"], &[]);
    assert!(out.status.success(), "{}", tfsum::text(&out));
    assert_eq!(called(&lock_of(&staging)), "v2.0.0");
}

/// `outdated` shows a module whose ref comes from a variable, at the line that writes
/// it; `upgrade module` edits that literal (the default, then a tfvars entry) and relocks.
#[test]
fn outdated_and_upgrade_follow_the_value_to_where_it_is_written() {
    let world = World::start();
    let dir = TempDir::new().expect("root");
    write(dir.path(), &[("main.tf", &world.dynamic_root())]);
    let out = world.tfsum(dir.path(), &["outdated", "--format=json", "."], &[]);
    assert!(out.status.success(), "{}", tfsum::text(&out));
    let report: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let module = report["items"]
        .as_array()
        .expect("items")
        .iter()
        .find(|i| i["kind"] == "module")
        .unwrap_or_else(|| panic!("no module row in {report:#}"));
    assert_eq!(module["locked"], "1.0.0", "{module:#}");
    assert_eq!(module["latest"], "2.0.0", "{module:#}");
    let declared = &module["declared"][0];
    assert_eq!(declared["line"], 4, "the default's line: {declared:#}");
    assert!(
        declared["via"]
            .as_str()
            .unwrap_or_default()
            .contains("the default of variable \"ref\""),
        "{declared:#}"
    );

    let source = world.source();
    let out = world.tfsum(dir.path(), &["upgrade", "module", &source, "."], &[]);
    assert!(out.status.success(), "{}", tfsum::text(&out));
    let main = std::fs::read_to_string(dir.path().join("main.tf")).expect("main.tf");
    assert!(main.contains("default = \"v2.0.0\""), "{main}");
    assert!(
        main.contains("?ref=${var.ref}"),
        "the source stays an expression: {main}"
    );
    assert_eq!(called(&lock_of(dir.path())), "v2.0.0");

    // With the value in terraform.tfvars, that entry is what moves.
    let dir = TempDir::new().expect("root");
    write(
        dir.path(),
        &[
            ("main.tf", &world.dynamic_root()),
            ("terraform.tfvars", "# pinned\nref = \"v1.0.0\" # keep\n"),
        ],
    );
    let out = world.tfsum(
        dir.path(),
        &["upgrade", "module", &source, "2.0.0", "."],
        &[],
    );
    assert!(out.status.success(), "{}", tfsum::text(&out));
    let tfvars = std::fs::read_to_string(dir.path().join("terraform.tfvars")).expect("tfvars");
    assert_eq!(tfvars, "# pinned\nref = \"v2.0.0\" # keep\n");
    assert!(std::fs::read_to_string(dir.path().join("main.tf"))
        .unwrap()
        .contains("default = \"v1.0.0\""));
    assert_eq!(called(&lock_of(dir.path())), "v2.0.0");
}

/// Terraform 1.14's `action` blocks imply their provider as resources do (native and
/// JSON syntax); `.tfquery.hcl` and `.tfmigrate.hcl` files are not configuration that
/// `init` reads. The lock file is Terraform 1.0.3's for the actions written as resources.
#[test]
fn action_blocks_imply_providers_and_query_files_are_not_read() {
    let world = World::start();
    let dir = TempDir::new().expect("root");
    write(
        dir.path(),
        &[
            (
                "main.tf",
                "action \"null_invoke\" \"notify\" {\n  config {\n    x = 1\n  }\n}\n",
            ),
            (
                "more.tf.json",
                "{\"action\": {\"random_roll\": {\"dice\": {}}}}\n",
            ),
            (
                "search.tfquery.hcl",
                "list \"aws_instance\" \"all\" {\n  provider = aws\n}\n",
            ),
            (
                "move.tfmigrate.hcl",
                "migrate \"x\" {\n  provider = google\n}\n",
            ),
        ],
    );
    let out = world.tfsum(dir.path(), &["lock", "."], &[]);
    assert!(out.status.success(), "{}", tfsum::text(&out));
    let want = world.terraform_lock(
        "resource \"null_invoke\" \"notify\" {}\nresource \"random_roll\" \"dice\" {}\n",
    );
    assert_eq!(lock_of(dir.path()), want);
}

/// A Terragrunt unit's `inputs` reach its module as `TF_VAR_` variables: a module source
/// there may read them.
#[test]
fn terragrunt_inputs_feed_module_sources() {
    let world = World::start();
    let dir = TempDir::new().expect("repo");
    std::fs::create_dir(dir.path().join(".git")).expect(".git");
    let module = format!(
        "{}module \"iam\" {{\n  source = \"{}?ref=${{var.ref}}\"\n}}\n",
        VARIABLE,
        world.source()
    );
    write(
        dir.path(),
        &[
            ("modules/app/main.tf", &module),
            (
                "live/app/terragrunt.hcl",
                "terraform {\n  source = \"../../modules/app\"\n}\ninputs = {\n  ref = \"v2.0.0\"\n  other = dependency.x.outputs.y\n}\n",
            ),
        ],
    );
    let out = world.tfsum(dir.path(), &["lock", "-r", "live"], &[]);
    assert!(out.status.success(), "{}", tfsum::text(&out));
    assert_eq!(called(&lock_of(&dir.path().join("live/app"))), "v2.0.0");
}
