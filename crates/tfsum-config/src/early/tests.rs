//! Early evaluation on small inputs: the two tools' rules for a call's `source` and
//! `version`, where a root's variables take their values (and in which order), the var
//! file readers, `path.module`, and where a version is written. `tests/it/early_eval.rs`
//! runs upstream's own cases through the binary; these pin the rules one by one.

use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;

use super::*;
use crate::load_module;
use tfsum_vocab::addr::TERRAFORM_REGISTRY;

fn write(base: &Path, rel: &str, text: &str) -> PathBuf {
    let path = base.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, text).unwrap();
    path
}

/// The variables and locals the rule cases read.
const DECLARATIONS: &str = r#"
variable "constant" {
  type    = string
  default = "net"
  const   = true
}
variable "plain" {
  default = "net"
}
variable "not_constant" {
  default = "net"
  const   = false
}
variable "secret" {
  default   = "net"
  sensitive = true
}
variable "version" {
  default = "~> 1.0"
  const   = true
}
locals {
  dir   = "./modules/${var.constant}"
  loop1 = local.loop2
  loop2 = local.loop1
}
"#;

/// What evaluating the one call of a root written with `call` (the body of `module "m"`)
/// gives under `rules`: `source`, then `version` if any; or the error's message.
fn evaluate(rules: Rules, call: &str, inputs: &ValueInputs) -> Result<String, String> {
    let tmp = tempfile::tempdir().unwrap();
    let main = format!("{DECLARATIONS}\nmodule \"m\" {{\n{call}\n}}\n");
    write(tmp.path(), "main.tf", &main);
    let module = load_module(tmp.path(), TERRAFORM_REGISTRY).map_err(|e| e.to_string())?;
    let root = RootInputs::new(rules, tmp.path(), inputs);
    let instance = Instance::root(&root, &module);
    let evaluated = instance
        .evaluate_call(&module.module_calls[0])
        .map_err(|e| match e {
            ConfigError::EarlyEval { message, .. } => message,
            other => other.to_string(),
        })?;
    Ok(match evaluated.version {
        Some(version) => format!("{} {version}", evaluated.source),
        None => evaluated.source,
    })
}

/// Terraform 1.15 (`node_module_install.go`) and OpenTofu 1.8 (`static_scope.go`) side
/// by side: which names a `source` or `version` may read, and what each tool makes of
/// a variable that is not constant, sensitive values, impure functions, the workspace,
/// a null version and a cycle of locals.
#[test]
fn each_tool_evaluates_a_call_by_its_own_rules() {
    use Rules::{OpenTofu, Terraform};
    let inputs = ValueInputs {
        workspace: Some("staging".into()),
        ..ValueInputs::default()
    };
    let cases: &[(Rules, &str, Result<&str, &str>)] = &[
        (
            Terraform,
            r#"source = "./modules/${var.constant}""#,
            Ok("./modules/net"),
        ),
        (
            OpenTofu,
            r#"source = "./modules/${var.constant}""#,
            Ok("./modules/net"),
        ),
        (Terraform, "source = local.dir", Ok("./modules/net")),
        (
            Terraform,
            r#"source = "./modules/${var.plain}""#,
            Err("`var.plain` is not declared `const = true`"),
        ),
        (
            OpenTofu,
            r#"source = "./modules/${var.plain}""#,
            Ok("./modules/net"),
        ),
        (
            OpenTofu,
            r#"source = "./modules/${var.not_constant}""#,
            Err("declared `const = false`"),
        ),
        (
            Terraform,
            r#"source = "./${terraform.workspace}""#,
            Err("it refers to terraform.workspace"),
        ),
        (
            OpenTofu,
            r#"source = "./${terraform.workspace}""#,
            Ok("./staging"),
        ),
        (
            OpenTofu,
            r#"source = "./${tofu.workspace}""#,
            Ok("./staging"),
        ),
        (
            Terraform,
            "source = \"acme/net/aws\"\nversion = var.version",
            Ok("acme/net/aws ~> 1.0"),
        ),
        (
            Terraform,
            "source = \"acme/net/aws\"\nversion = path.module",
            Err("refer only to constant input variables and local values"),
        ),
        (
            Terraform,
            "source = \"acme/net/aws\"\nversion = null",
            Ok("acme/net/aws"),
        ),
        (
            OpenTofu,
            "source = var.secret",
            Err("derived from a sensitive value"),
        ),
        (
            Terraform,
            r#"source = "./${timestamp()}""#,
            Err("timestamp() returns a new value on every run"),
        ),
        (Terraform, "source = local.loop1", Err("circular reference")),
        (
            OpenTofu,
            "source = var.missing",
            Err("no variable named \"missing\""),
        ),
    ];
    for (rules, call, want) in cases {
        let got = evaluate(*rules, call, &inputs);
        match (want, &got) {
            (Ok(want), Ok(got)) => assert_eq!(got, want, "{rules:?} {call}"),
            (Err(want), Err(got)) => assert!(got.contains(want), "{rules:?} {call}: {got}"),
            _ => panic!("{rules:?} {call}: {got:?}, expected {want:?}"),
        }
    }
}

/// The value a given variable holds, as text, and where it came from.
fn shown((given, origin): &(Given, Origin)) -> String {
    let value = match given {
        Given::Text(text) => text.clone(),
        Given::Expr(written) => written.text.trim().trim_matches('"').to_string(),
        Given::Value(value) => value.as_string().unwrap_or_default(),
        Given::Failed(why) => format!("failed: {why}"),
    };
    let origin = match origin {
        Origin::File(at) => at.file.file_name().unwrap().to_string_lossy().into_owned(),
        other => other.to_string(),
    };
    format!("{value} from {origin}")
}

/// Where values come from, lowest precedence first (`internal/command/arguments/vars.go`):
/// `TF_VAR_`, `terraform.tfvars`, `*.auto.tfvars(.json)` by name, the var files
/// `.tfsum.toml` assigns, then `--var` and `--var-file` in their order. Each variable
/// below is set by two neighbours of that order; the later one wins. The var files read
/// are the root's value files, once an evaluation asked.
#[test]
fn values_take_terraforms_precedence() {
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path();
    let root = base.join("envs/prod");
    write(
        &root,
        "terraform.tfvars",
        "env_then_tfvars = \"tfvars\"\ntfvars_then_auto = \"tfvars\"\n",
    );
    write(
        &root,
        "a.auto.tfvars",
        "tfvars_then_auto = \"a.auto\"\nauto_then_auto = \"a.auto\"\n",
    );
    write(
        &root,
        "b.auto.tfvars.json",
        r#"{"auto_then_auto": "b.auto", "auto_then_assigned": "b.auto"}"#,
    );
    write(
        base,
        "shared/prod.tfvars",
        "auto_then_assigned = \"assigned\"\nassigned_then_flag = \"assigned\"\n",
    );
    let cli_file = write(
        base,
        "cli.tfvars",
        "flag_then_file = \"cli\"\nfile_then_flag = \"cli\"\n",
    );
    let var = |name: &str| CliValue::Var {
        name: name.into(),
        value: "flag".into(),
    };
    let inputs = ValueInputs {
        env: [("env_then_tfvars", "env"), ("only_env", "env")]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        cli: vec![
            var("assigned_then_flag"),
            var("flag_then_file"),
            CliValue::File(cli_file.clone()),
            var("file_then_flag"),
        ],
        assigned: vec![AssignedFiles {
            base: base.to_path_buf(),
            pattern: regex::Regex::new("^envs/").unwrap(),
            files: vec![PathBuf::from("shared/prod.tfvars")],
            origin: ".tfsum.toml".into(),
        }],
        readable: vec![base.to_path_buf()],
        ..ValueInputs::default()
    };
    let root_inputs = RootInputs::new(Rules::Terraform, &root, &inputs);
    assert_eq!(
        root_inputs.value_files(),
        Vec::<PathBuf>::new(),
        "none read yet"
    );
    let given = root_inputs.given().unwrap();
    let got: Vec<(String, String)> = given
        .by_name
        .iter()
        .map(|(name, given)| (name.clone(), shown(given)))
        .collect();
    let want = [
        ("assigned_then_flag", "flag from --var"),
        ("auto_then_assigned", "assigned from prod.tfvars"),
        ("auto_then_auto", "b.auto from b.auto.tfvars.json"),
        ("env_then_tfvars", "tfvars from terraform.tfvars"),
        ("file_then_flag", "flag from --var"),
        ("flag_then_file", "cli from cli.tfvars"),
        (
            "only_env",
            "env from the environment variable TF_VAR_only_env",
        ),
        ("tfvars_then_auto", "a.auto from a.auto.tfvars"),
    ];
    let want: Vec<(String, String)> = want
        .iter()
        .map(|(name, shown)| (name.to_string(), shown.to_string()))
        .collect();
    assert_eq!(got, want);
    let mut files = vec![
        root.join("terraform.tfvars"),
        root.join("a.auto.tfvars"),
        root.join("b.auto.tfvars.json"),
        base.join("shared/prod.tfvars"),
        cli_file,
    ];
    files.sort();
    assert_eq!(root_inputs.value_files(), files);
}

/// A var file assigned to roots outside the trees tfsum reads is refused, naming the
/// settings file that assigns it.
#[test]
fn an_assigned_var_file_stays_within_the_trees_read() {
    let tmp = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    write(outside.path(), "x.tfvars", "v = 1\n");
    let inputs = ValueInputs {
        assigned: vec![AssignedFiles {
            base: tmp.path().to_path_buf(),
            pattern: regex::Regex::new(".*").unwrap(),
            files: vec![outside.path().join("x.tfvars")],
            origin: ".tfsum.toml".into(),
        }],
        readable: vec![tmp.path().to_path_buf()],
        ..ValueInputs::default()
    };
    let root = RootInputs::new(Rules::OpenTofu, tmp.path(), &inputs);
    let error = root.given().err().unwrap();
    assert!(error.contains(".tfsum.toml"), "{error}");
    assert!(error.contains("outside the trees tfsum reads"), "{error}");
}

/// A var file is JSON by its `.json` name, or by a leading `{` unless it is named
/// `.tfvars`; a native one keeps each value's text and where it starts in the file
/// (a byte order mark counted), so that `upgrade` can edit it in place; a block in it
/// is refused with its line.
#[test]
fn var_files_are_read_by_their_syntax() {
    let tmp = tempfile::tempdir().unwrap();
    let read = |name: &str, text: &str| {
        let path = write(tmp.path(), name, text);
        let mut given = GivenValues::default();
        read_var_file(&path, None, &mut given).map(|()| given)
    };

    let native = read("a.tfvars", "\u{feff}v = \"x\"\nw = [1, 2]\n").unwrap();
    let Some((Given::Expr(v), Origin::File(at))) = native.by_name.get("v") else {
        panic!("{:?}", native.by_name);
    };
    assert_eq!((&*v.text, at.line, v.offset), ("\"x\"", 1, Some(7)));
    let Some((Given::Expr(w), _)) = native.by_name.get("w") else {
        panic!("{:?}", native.by_name);
    };
    assert_eq!((&*w.text, w.at.line), ("[1, 2]", 2));

    for (name, text) in [
        ("b.tfvars.json", r#"{"v": "x"}"#),
        ("b.vars", r#"{"v": "x"}"#),
    ] {
        let json = read(name, text).unwrap();
        let Some((Given::Value(value), _)) = json.by_name.get("v") else {
            panic!("{name}: {:?}", json.by_name);
        };
        assert_eq!(value, &Value::string("x"), "{name}");
    }
    assert!(
        read("c.tfvars", "{\"v\": \"x\"}\n").is_err(),
        "a .tfvars file is native syntax"
    );

    let error = read("d.tfvars", "v = 1\n\nlocals {\n  x = 1\n}\n").unwrap_err();
    let message = error.to_string();
    assert!(message.contains("not blocks"), "{message}");
    assert!(message.contains("d.tfvars:3"), "{message}");
}

/// `.tfsum.toml`'s `var_files` name roots by their path below the settings file's
/// directory, `.` for that directory itself; a root elsewhere is never named.
#[test]
fn assigned_files_name_roots_by_their_relative_path() {
    let assigned = |pattern: &str| AssignedFiles {
        base: PathBuf::from("/repo"),
        pattern: regex::Regex::new(pattern).unwrap(),
        files: Vec::new(),
        origin: ".tfsum.toml".into(),
    };
    let cases = [
        ("^envs/", "/repo/envs/prod", true),
        ("^envs/", "/repo/modules/net", false),
        ("^envs/", "/elsewhere/envs/prod", false),
        ("^envs/prod$", "/repo/envs/prod/", true),
        (r"^\.$", "/repo", true),
        ("^$", "/repo", false),
    ];
    for (pattern, dir, want) in cases {
        assert_eq!(
            assigned_to(&assigned(pattern), Path::new(dir)),
            want,
            "{pattern} {dir}"
        );
    }
}

/// Terraform's `path.module`: the module's directory relative to the root's, or where
/// `init` installs a remote package (`.terraform/modules/KEY`, then the subdirectory).
#[test]
fn path_module_is_relative_to_the_root() {
    let tmp = tempfile::tempdir().unwrap();
    let root_dir = tmp.path().join("root");
    write(&root_dir, "main.tf", "");
    let module = load_module(&root_dir, TERRAFORM_REGISTRY).unwrap();
    let inputs = ValueInputs::default();
    let root = RootInputs::new(Rules::Terraform, &root_dir, &inputs);
    let instance = Instance::root(&root, &module);
    let remote = |key: &'static str, subdir: &'static str| Some((key, Path::new(subdir)));
    let cases = [
        (root_dir.clone(), None, "."),
        (root_dir.join("modules/net"), None, "modules/net"),
        (tmp.path().join("shared"), None, "../shared"),
        (
            root_dir.join("x"),
            remote("net", "."),
            ".terraform/modules/net",
        ),
        (
            root_dir.join("x"),
            remote("net.vpc", "modules/vpc"),
            ".terraform/modules/net.vpc/modules/vpc",
        ),
    ];
    for (dir, remote, want) in cases {
        assert_eq!(
            instance.path_module_for(&dir, remote),
            want,
            "{}",
            dir.display()
        );
    }
}

/// Where a version written through variables and locals is one literal: a variable's
/// default, a `.tfvars` entry (with the bytes to edit), a local's object attribute, a
/// git source's `?ref=`; and why not when it is computed or given on the command line.
#[test]
fn a_version_is_traced_to_where_it_is_written() {
    let tmp = tempfile::tempdir().unwrap();
    let root_dir = tmp.path();
    let main = r#"variable "ver" {
  default = "~> 1.0"
  const   = true
}
variable "given" {
  const = true
}
variable "flag" {
  const = true
}
variable "ref" {
  default = "v1.2.0"
  const   = true
}
locals {
  versions = { vpc = "2.0.0" }
}
module "default" {
  source  = "acme/a/aws"
  version = var.ver
}
module "tfvars" {
  source  = "acme/b/aws"
  version = var.given
}
module "local" {
  source  = "acme/c/aws"
  version = local.versions.vpc
}
module "ref" {
  source = "git::https://example.com/x.git?ref=${var.ref}"
}
module "computed" {
  source  = "acme/d/aws"
  version = "${var.ver}-x"
}
module "flag" {
  source  = "acme/e/aws"
  version = var.flag
}
module "literal" {
  source  = "acme/f/aws"
  version = "1.0.0"
}
"#;
    write(root_dir, "main.tf", main);
    let tfvars = "given = \"3.0.0\"\n";
    let tfvars_path = write(root_dir, "terraform.tfvars", tfvars);
    let module = load_module(root_dir, TERRAFORM_REGISTRY).unwrap();
    let inputs = ValueInputs {
        cli: vec![CliValue::Var {
            name: "flag".into(),
            value: "4.0.0".into(),
        }],
        ..ValueInputs::default()
    };
    let root = RootInputs::new(Rules::Terraform, root_dir, &inputs);
    let instance = Instance::root(&root, &module);
    let traced = |name: &str| {
        let call = module.module_calls.iter().find(|c| c.name == name).unwrap();
        instance.version_definition(call)
    };

    let default = traced("default").unwrap().unwrap();
    assert_eq!(
        (
            default.text.as_str(),
            default.what.as_str(),
            default.at.line
        ),
        ("~> 1.0", "the default of variable \"ver\"", 2)
    );
    assert_eq!(&main[default.span.unwrap()], "\"~> 1.0\"");

    let given = traced("tfvars").unwrap().unwrap();
    assert_eq!(given.text, "3.0.0");
    assert_eq!(*given.at.file, *tfvars_path);
    assert_eq!(&tfvars[given.span.unwrap()], "\"3.0.0\"");
    assert!(given.what.starts_with("given in "), "{}", given.what);

    let local = traced("local").unwrap().unwrap();
    assert_eq!(
        (local.text.as_str(), local.what.as_str()),
        ("2.0.0", "local.versions.vpc")
    );
    let git_ref = traced("ref").unwrap().unwrap();
    assert_eq!(git_ref.text, "v1.2.0");

    let computed = traced("computed").unwrap().unwrap_err();
    assert!(computed.contains("computed"), "{computed}");
    let flag = traced("flag").unwrap().unwrap_err();
    assert!(flag.contains("given by --var"), "{flag}");
    assert!(traced("literal").is_none());
}
