use std::path::Path;

use super::*;
use tfsum_vocab::addr::{OPENTOFU_REGISTRY, TERRAFORM_REGISTRY};

/// A directory holding `files`, scanned as one module of Terraform (or OpenTofu) flavor.
fn scope(files: &[(&str, &str)], host: &'static str) -> (tempfile::TempDir, Scope) {
    let dir = tempfile::TempDir::new().unwrap();
    for (name, text) in files {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let mut scope = Scope::default();
    scope.add_dir(dir.path(), host, &|_| true).unwrap();
    (dir, scope)
}

/// Every site of `subject` set to `new`: each edited file's new text by file name, and
/// the notes' messages.
fn upgrade(scope: &Scope, subject: Subject, new: &str) -> (Vec<(String, String)>, Vec<String>) {
    let (sites, notes) = scope.sites(&subject);
    let edits: Vec<(&Site, String)> = sites.iter().map(|s| (s, new.to_string())).collect();
    let files = scope
        .apply(&edits)
        .into_iter()
        .map(|f| (name(&f.path), f.new))
        .collect();
    (files, notes.into_iter().map(|n| n.message).collect())
}

fn name(path: &Path) -> String {
    path.file_name().unwrap().to_string_lossy().into_owned()
}

fn provider(name: &str) -> Subject {
    if name.contains('/') {
        Subject::Provider(ProviderName::Address(name.to_string()))
    } else {
        Subject::Provider(ProviderName::Local(name.to_string()))
    }
}

const VERSIONS: &str = r#"terraform {
  required_providers {
    aws = {
      source  = "HashiCorp/AWS"
      version = "~> 5.0" # pinned by platform
    }
    random = "~> 3.5"
  }
  required_providers {
    aws2 = { source = "registry.terraform.io/hashicorp/aws", version = ">= 5.0" }
  }
}

provider "aws" {
  version = "~> 5.0"
}

provider "aws2" {
  region = "eu-west-1"
}
"#;

/// A source address selects by address (host default, case folded), whatever the local
/// name, in every `required_providers` block, and the provider blocks of those names; a
/// local name selects by name; nothing else changes, byte for byte.
#[test]
fn providers_by_address_and_by_local_name() {
    let (_dir, scope) = scope(&[("versions.tf", VERSIONS)], TERRAFORM_REGISTRY);
    let (files, notes) = upgrade(&scope, provider("hashicorp/aws"), "6.0.0");
    assert!(notes.is_empty(), "{notes:?}");
    let want = VERSIONS
        .replace("\"~> 5.0\" # pinned", "\"6.0.0\" # pinned")
        .replace("\">= 5.0\" }", "\"6.0.0\" }")
        .replace("version = \"~> 5.0\"\n}", "version = \"6.0.0\"\n}");
    assert_eq!(files, [("versions.tf".to_string(), want)]);

    let (files, _) = upgrade(&scope, provider("random"), "3.6.0");
    assert_eq!(
        files,
        [(
            "versions.tf".to_string(),
            VERSIONS.replace("\"~> 3.5\"", "\"3.6.0\"")
        )]
    );
    // Another host, and a name nobody uses: nothing.
    for name in ["registry.opentofu.org/hashicorp/aws", "azurerm"] {
        let (files, _) = upgrade(&scope, provider(name), "6.0.0");
        assert!(files.is_empty(), "{name}: {files:?}");
    }
}

/// The same short address means the OpenTofu registry in an OpenTofu module.
#[test]
fn short_addresses_take_the_modules_registry() {
    let (_dir, scope) = scope(&[("versions.tf", VERSIONS)], OPENTOFU_REGISTRY);
    let (files, _) = upgrade(&scope, provider("hashicorp/aws"), "6.0.0");
    assert_eq!(files.len(), 1);
    let (files, _) = upgrade(
        &scope,
        provider("registry.terraform.io/hashicorp/aws"),
        "6.0.0",
    );
    // Only the entry whose source names registry.terraform.io.
    assert_eq!(
        files,
        [(
            "versions.tf".to_string(),
            VERSIONS.replace("\">= 5.0\" }", "\"6.0.0\" }")
        )]
    );
}

/// A legacy entry without a source takes its address from the entry that has one, in
/// another file of the module; an expression is named, not edited.
#[test]
fn legacy_entries_and_expressions() {
    let (_dir, scope) = scope(
        &[
            ("a.tf", "terraform {\n  required_providers {\n    aws = \"~> 5.0\"\n  }\n}\n"),
            (
                "b.tf",
                "terraform {\n  required_providers {\n    aws = { source = \"example/aws\", version = var.v }\n  }\n}\n",
            ),
        ],
        TERRAFORM_REGISTRY,
    );
    let (files, notes) = upgrade(&scope, provider("example/aws"), "2.0.0");
    assert_eq!(
        files,
        [(
            "a.tf".to_string(),
            "terraform {\n  required_providers {\n    aws = \"2.0.0\"\n  }\n}\n".to_string()
        )]
    );
    assert_eq!(notes.len(), 1);
    assert!(
        notes[0].contains("var.v, not a literal string"),
        "{notes:?}"
    );
}

/// Registry modules: every call of the package, submodules too, whatever the host
/// spelling; a `//subdir` in the source narrows to that submodule.
#[test]
fn registry_modules() {
    let main = r#"module "vpc" {
  source  = "terraform-aws-modules/vpc/aws"
  version = "5.0.0"
}

module "vpc_host" {
  source  = "registry.terraform.io/Terraform-AWS-Modules/vpc/aws"
  version = "~> 5.0"
}

module "vpc_sub" {
  source  = "terraform-aws-modules/vpc/aws//modules/vpc-endpoints"
  version = "5.0.0"
}

module "unpinned" {
  source = "terraform-aws-modules/vpc/aws"
}

module "local" {
  source = "./modules/vpc"
}
"#;
    let (_dir, scope) = scope(&[("main.tf", main)], TERRAFORM_REGISTRY);
    let subject = |s: &str| Subject::Module(ModuleMatch::Source(s.to_string()));
    let (files, _) = upgrade(&scope, subject("terraform-aws-modules/vpc/aws"), "5.1.0");
    assert_eq!(
        files[0].1,
        main.replace("\"5.0.0\"", "\"5.1.0\"")
            .replace("\"~> 5.0\"", "\"5.1.0\"")
    );
    let (files, _) = upgrade(
        &scope,
        subject("terraform-aws-modules/vpc/aws//modules/vpc-endpoints"),
        "5.1.0",
    );
    assert_eq!(
        files[0].1,
        main.replacen("\"5.0.0\"", "\"X\"", 1)
            .replace("\"5.0.0\"", "\"5.1.0\"")
            .replace("\"X\"", "\"5.0.0\"")
    );
}

/// Git modules: the ref's version moves wherever `ref` is in the query and whatever
/// else the query holds, keeping its `v` or not; refs that are not versions, and a
/// `version` argument, are named and left.
#[test]
fn git_module_refs() {
    let main = r#"module "a" {
  source = "git::https://github.com/org/vpc.git?ref=v1.2.3"
}

module "b" {
  source = "github.com/org/vpc//modules/sub?depth=1&ref=1.2.3"
}

module "c" {
  source = "git::https://github.com/org/vpc.git?ref=refs/tags/v1.2"
}

module "d" {
  source = "git::https://github.com/org/vpc.git?ref=main"
}

module "e" {
  source  = "git::https://github.com/org/vpc.git"
  version = "1.2.3"
}

module "f" {
  source = "git::https://github.com/org/other.git?ref=v1.2.3"
}
"#;
    let (_dir, scope) = scope(&[("main.tf", main)], TERRAFORM_REGISTRY);
    let subject = Subject::Module(ModuleMatch::Source(
        "git::https://github.com/org/vpc.git".to_string(),
    ));
    let (sites, _) = scope.sites(&subject);
    let current: Vec<&str> = sites.iter().map(Site::current).collect();
    assert_eq!(current, ["1.2.3", "1.2.3", "1.2"]);
    let (files, notes) = upgrade(&scope, subject, "1.3.0");
    let want = main
        .replace("vpc.git?ref=v1.2.3", "vpc.git?ref=v1.3.0")
        .replace("depth=1&ref=1.2.3", "depth=1&ref=1.3.0")
        .replace("refs/tags/v1.2\"", "refs/tags/v1.3.0\"");
    assert_eq!(files[0].1, want);
    assert_eq!(notes.len(), 2, "{notes:?}");
    assert!(notes[0].contains("ref \"main\" is not a version tag"));
    assert!(notes[1].contains("a git module takes no version argument"));

    // A pattern is searched in the source without its ref.
    let regex = Subject::Module(ModuleMatch::Regex(Regex::new("org/other").unwrap()));
    let (files, _) = upgrade(&scope, regex, "2.0.0");
    assert_eq!(
        files[0].1,
        main.replace("other.git?ref=v1.2.3", "other.git?ref=v2.0.0")
    );
}

/// `required_version` in the files each tool reads: `versions.tofu` replaces
/// `versions.tf` for OpenTofu only.
#[test]
fn required_version_per_dialect() {
    let files = [
        (
            "versions.tf",
            "terraform {\n  required_version = \">= 1.5\"\n}\n",
        ),
        (
            "versions.tofu",
            "terraform {\n  required_version = \">= 1.7\"\n}\n",
        ),
        (
            "main.tf",
            "terraform {\n  required_version = \"~> 1.6\"\n}\n",
        ),
        (
            "json.tf.json",
            "{\n  \"terraform\": {\n    \"required_version\": \">= 1.0\"\n  }\n}\n",
        ),
    ];
    let (_dir, scope) = scope(&files, TERRAFORM_REGISTRY);
    let names = |dialect| -> Vec<String> {
        let (sites, _) = scope.sites(&Subject::RequiredVersion(dialect));
        sites.iter().map(|s| name(&s.value.at.file)).collect()
    };
    assert_eq!(
        names(Dialect::Terraform),
        ["json.tf.json", "main.tf", "versions.tf"]
    );
    assert_eq!(
        names(Dialect::OpenTofu),
        ["json.tf.json", "main.tf", "versions.tofu"]
    );
    let (edited, _) = upgrade(
        &scope,
        Subject::RequiredVersion(Dialect::Terraform),
        "1.9.0",
    );
    assert_eq!(
        edited[0],
        (
            "json.tf.json".to_string(),
            "{\n  \"terraform\": {\n    \"required_version\": \"1.9.0\"\n  }\n}\n".to_string()
        )
    );
}

/// JSON syntax: the value's bytes are replaced and nothing else, even in a one-line file;
/// entries, provider blocks and modules are found in arrays of blocks too.
#[test]
fn json_files() {
    let text = r#"{"terraform":[{"required_providers":{"aws":{"source":"hashicorp/aws","version":"~> 5.0"}}}],
 "provider": {"aws": [{"region": "x", "version": "~> 5.0"}]},
 "module": {"vpc": {"source": "terraform-aws-modules/vpc/aws", "version": "5.0.0"}}}"#;
    let (_dir, scope) = scope(&[("main.tf.json", text)], TERRAFORM_REGISTRY);
    let (files, _) = upgrade(&scope, provider("aws"), "6.0.0");
    assert_eq!(files[0].1, text.replace("~> 5.0", "6.0.0"));
    let (files, _) = upgrade(
        &scope,
        Subject::Module(ModuleMatch::Source("terraform-aws-modules/vpc/aws".into())),
        "5.1.0",
    );
    assert_eq!(files[0].1, text.replace("5.0.0", "5.1.0"));
}

/// A byte order mark and CRLF line ends stay; the value is written as an HCL string.
#[test]
fn bom_crlf_and_escapes() {
    let text = "\u{feff}terraform {\r\n  required_providers {\r\n    aws = { version = \">= 5.0, \\u003c 6.0\" }\r\n  }\r\n}\r\n";
    let (_dir, scope) = scope(&[("versions.tf", text)], TERRAFORM_REGISTRY);
    let (sites, _) = scope.sites(&provider("aws"));
    assert_eq!(sites[0].current(), ">= 5.0, < 6.0");
    assert_eq!(sites[0].value.at.line, 3);
    let (files, _) = upgrade(&scope, provider("aws"), "6.0.0");
    assert_eq!(
        files[0].1,
        text.replace("\">= 5.0, \\u003c 6.0\"", "\"6.0.0\"")
    );
}

#[test]
fn editable_paths() {
    assert!(is_editable(Path::new("envs/prod/main.tf")));
    assert!(is_editable(Path::new("a/versions.tofu.json")));
    assert!(is_editable(Path::new("stack/components.tfcomponent.hcl")));
    assert!(is_editable(Path::new("stack/components.tfcomponent.json")));
    assert!(is_editable(Path::new("old/components.tfstack.hcl")));
    assert!(!is_editable(Path::new("stack/deployments.tfdeploy.hcl")));
    assert!(!is_editable(Path::new(
        ".terraform/modules/x/a.tfcomponent.hcl"
    )));
    assert!(!is_editable(Path::new(".terraform/modules/vpc/main.tf")));
    assert!(!is_editable(Path::new("envs/main.tf.bak")));
    assert!(!is_editable(Path::new("x/.terragrunt-cache/abc/main.tf")));
}

/// A Terragrunt `tfr://` source written whole: its `?version=` is the slot edited.
#[test]
fn query_parameters() {
    let source = "tfr:///terraform-aws-modules/vpc/aws?version=5.1.0";
    let slot = query_slot(source, "version").expect("version");
    assert_eq!(&source[slot], "5.1.0");
    let source = "tfr://host.example/a/b/c?x=1&version=2.0.0&y=2";
    assert_eq!(
        &source[query_slot(source, "version").expect("version")],
        "2.0.0"
    );
    assert_eq!(query_slot("tfr:///a/b/c", "version"), None);
    assert_eq!(query_slot("tfr:///a/b/c?versions=1", "version"), None);
}

/// A Terraform Stack's file (docs/spec/stacks.md §2), aligned as `terraform fmt` leaves
/// it: `required_providers` is top-level and its entries name their source; `component`,
/// `removed` and `stack` blocks play the part of module calls.
const STACK: &str = r#"required_providers {
  random = {
    source  = "hashicorp/random"
    version = "~> 3.5.1" # pinned by platform
  }
  null = {
    source  = "hashicorp/null"
    version = "~> 3.2.2"
  }
}

provider "random" "this" {}
provider "null" "this" {}

component "pet" {
  source  = "app.terraform.io/acme/pet/random"
  version = "1.0.0"
  providers = {
    random = provider.random.this
  }
}

component "nulls" {
  source = "./nulls"
}

component "git" {
  source = "git::https://example.com/org/pet.git?ref=v1.0.0"
}

component "dynamic" {
  source  = "app.terraform.io/acme/pet/random"
  version = var.pet_version
}

removed {
  from    = component.old_pet
  source  = "app.terraform.io/acme/pet/random"
  version = "~> 1.0"
}

stack "net" {
  source  = "app.terraform.io/acme/pet/random"
  version = "1.0.0"
}

stack "local" {
  source = "../shared"
}
"#;

/// Stack files are scanned as their own form, edited in place like `.tf` files: by
/// provider address or local name, by module source (components, removed blocks and
/// embedded stacks, each named as the stack loader names it); their local sources join
/// the scope; their remote calls are not `remote_calls` (outdated has them from the
/// load stage) and never evaluated. A deployment file is not read; a short address in a
/// stack means `registry.terraform.io` whatever the directory's default.
#[test]
fn stack_files() {
    let deploy = "deployment \"prod\" {\n  inputs = { v = \"~> 3.5.1\" }\n}\n";
    let (dir, scope) = scope(
        &[
            ("stack/components.tfcomponent.hcl", STACK),
            ("stack/deployments.tfdeploy.hcl", deploy),
        ],
        OPENTOFU_REGISTRY,
    );
    let stack_dir = dir.path().join("stack");
    let mut scope = scope;
    scope
        .add_dir(&stack_dir, OPENTOFU_REGISTRY, &|_| true)
        .unwrap();
    let names: Vec<String> = scope.files.iter().map(|f| name(&f.path)).collect();
    assert_eq!(names, ["components.tfcomponent.hcl"]);

    let rows: Vec<(Subject, Vec<&str>)> = vec![
        (provider("hashicorp/random"), vec!["random"]),
        (
            provider("registry.terraform.io/hashicorp/random"),
            vec!["random"],
        ),
        (provider("random"), vec!["random"]),
        (provider("null"), vec!["null"]),
        (provider("acme/random"), vec![]),
    ];
    for (subject, want) in rows {
        let (sites, _) = scope.sites(&subject);
        let got: Vec<String> = sites
            .iter()
            .map(|s| match &s.target {
                Target::Provider {
                    addr,
                    local_name,
                    block: false,
                } => {
                    assert_eq!(addr.hostname.as_str(), TERRAFORM_REGISTRY, "{addr}");
                    local_name.clone()
                }
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(got, want, "{subject:?}");
    }
    let (files, notes) = upgrade(&scope, provider("hashicorp/random"), "3.6.0");
    assert!(notes.is_empty(), "{notes:?}");
    let want = STACK.replace(
        "version = \"~> 3.5.1\" # pinned by platform",
        "version = \"3.6.0\" # pinned by platform",
    );
    assert_eq!(files, [("components.tfcomponent.hcl".to_string(), want)]);

    let module = Subject::Module(ModuleMatch::Source(
        "app.terraform.io/acme/pet/random".to_string(),
    ));
    let (sites, notes) = scope.sites(&module);
    let found: Vec<(usize, &str)> = sites
        .iter()
        .map(|s| (s.value.at.line, s.current()))
        .collect();
    assert_eq!(found, [(17, "1.0.0"), (39, "~> 1.0"), (44, "1.0.0")]);
    assert_eq!(
        notes.iter().map(|n| n.message.as_str()).collect::<Vec<_>>(),
        ["the version of component \"dynamic\" is var.pet_version, not a literal string; tfsum cannot edit it and left it as it is"]
    );
    let (files, _) = upgrade(&scope, module, "2.0.0");
    let want = STACK
        .replace("version = \"1.0.0\"", "version = \"2.0.0\"")
        .replace("version = \"~> 1.0\"", "version = \"2.0.0\"");
    assert_eq!(files[0].1, want);
    let git = Subject::Module(ModuleMatch::Source(
        "git::https://example.com/org/pet.git".to_string(),
    ));
    let (files, _) = upgrade(&scope, git, "1.1.0");
    assert_eq!(
        files[0].1,
        STACK.replace("pet.git?ref=v1.0.0", "pet.git?ref=v1.1.0")
    );

    let local: Vec<PathBuf> = scope.local_calls();
    assert_eq!(
        local,
        [
            normalize_path(&dir.path().join("shared")),
            normalize_path(&stack_dir.join("nulls"))
        ]
    );
    assert!(scope.remote_calls().is_empty());
    assert!(!scope.has_evaluated_calls());
}

/// A stack's JSON file (`.tfcomponent.json`): entries, components and removed blocks
/// (`from` as a template) are found in objects and arrays of blocks, and only the
/// values' bytes change.
#[test]
fn stack_json_files() {
    let text = r#"{"required_providers": {"random": {"source": "hashicorp/random", "version": "~> 3.5.1"}},
 "component": {"pet": [{"source": "app.terraform.io/acme/pet/random", "version": "1.0.0"}]},
 "removed": [{"from": "${component.old}", "source": "app.terraform.io/acme/pet/random", "version": "1.0.0"}]}"#;
    let (_dir, scope) = scope(&[("stack.tfcomponent.json", text)], TERRAFORM_REGISTRY);
    let (files, _) = upgrade(&scope, provider("hashicorp/random"), "3.6.0");
    assert_eq!(files[0].1, text.replace("~> 3.5.1", "3.6.0"));
    let module = Subject::Module(ModuleMatch::Regex(Regex::new("acme/pet").unwrap()));
    let (files, notes) = upgrade(&scope, module, "2.0.0");
    assert!(notes.is_empty(), "{notes:?}");
    assert_eq!(files[0].1, text.replace("1.0.0", "2.0.0"));
}

/// Which stack files a directory's scan reads, as Terraform does: the current names
/// when there is one, else the legacy `*.tfstack.*` (1.13 reads them); a directory of
/// both reads the current ones only (the loader refuses the mix).
#[test]
fn legacy_stack_names() {
    let old = "required_providers {\n  null = {\n    source  = \"hashicorp/null\"\n    version = \"3.2.2\"\n  }\n}\n";
    for (files, want) in [
        (vec![("a.tfstack.hcl", old)], vec!["a.tfstack.hcl"]),
        (
            vec![("a.tfstack.hcl", old), ("b.tfcomponent.hcl", old)],
            vec!["b.tfcomponent.hcl"],
        ),
        (
            vec![("c.tfstack.json", "{}"), ("d.tf", "")],
            vec!["d.tf", "c.tfstack.json"],
        ),
    ] {
        let (_dir, scope) = scope(&files, TERRAFORM_REGISTRY);
        let names: Vec<String> = scope.files.iter().map(|f| name(&f.path)).collect();
        assert_eq!(names, want, "{files:?}");
    }
}
