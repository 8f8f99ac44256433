//! Reading stack directories: the files that count, the rules of `required_providers`,
//! and the blocks that name modules and stacks.

use std::path::Path;

use super::*;
use crate::early::TextOverrides;

/// No file is edited.
struct OnDisk;

impl TextOverrides for OnDisk {
    fn text_of(&self, _path: &Path) -> Option<&str> {
        None
    }
}

fn write(dir: &Path, name: &str, text: &str) {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn load(dir: &Path) -> Result<StackConfig, ConfigError> {
    load_stack(dir, &OnDisk, &Listings::default())
}

const PET_NULLS: &str = r#"
variable "prefix" {
  type = string
}

required_providers {
  random = {
    source  = "hashicorp/random"
    version = "~> 3.5.1"
  }

  null = {
    source  = "hashicorp/null"
    version = "~> 3.2.2"
  }
}

provider "random" "this" {}
provider "null" "this" {}

component "pet" {
  source = "./pet"

  inputs = {
    prefix = var.prefix
  }

  providers = {
    random = provider.random.this
  }
}

component "nulls" {
  source = "./nulls"

  providers = {
    null = provider.null.this
  }
}

removed {
  from   = component.old
  source = "app.terraform.io/acme/old/aws"
  version = "1.0.0"
  providers = {
    aws.west = var.west
  }
}

stack "network" {
  source = "git::https://example.com/network.git?ref=v1"
}
"#;

/// hashicorp-guides/pet-nulls-stack's components file (with a removed block and an
/// embedded stack added): what each block says.
#[test]
fn a_stack_file_read() {
    let tmp = tempfile::tempdir().unwrap();
    write(tmp.path(), "components.tfcomponent.hcl", PET_NULLS);
    write(
        tmp.path(),
        "deployments.tfdeploy.hcl",
        "deployment \"x\" {\n",
    );
    write(tmp.path(), "main.tf", "this is not read {");
    let stack = load(tmp.path()).unwrap();
    assert!(!stack.legacy);
    assert_eq!(stack.files, [tmp.path().join("components.tfcomponent.hcl")]);
    let required: Vec<(&str, String, Option<&str>, usize)> = stack
        .required_providers
        .iter()
        .map(|r| {
            let version = r.version.as_ref().map(|v| v.text.as_str());
            (
                r.local_name.as_str(),
                r.addr.to_string(),
                version,
                r.at.line,
            )
        })
        .collect();
    assert_eq!(
        required,
        [
            (
                "null",
                "registry.terraform.io/hashicorp/null".into(),
                Some("~> 3.2.2"),
                12
            ),
            (
                "random",
                "registry.terraform.io/hashicorp/random".into(),
                Some("~> 3.5.1"),
                7
            ),
        ]
    );
    assert_eq!(stack.provider_configs.len(), 2);
    let components: Vec<(BlockKind, &str, &str, usize)> = stack
        .components
        .iter()
        .map(|c| (c.kind, c.name.as_str(), c.source.text.as_str(), c.at.line))
        .collect();
    assert_eq!(
        components,
        [
            (BlockKind::Declared, "pet", "./pet", 21),
            (BlockKind::Declared, "nulls", "./nulls", 33),
            (
                BlockKind::Removed,
                "component.old",
                "app.terraform.io/acme/old/aws",
                41
            ),
        ]
    );
    let pet = &stack.components[0];
    assert_eq!(pet.providers.len(), 1);
    assert_eq!(pet.providers[0].local_name, "random");
    assert_eq!(pet.providers[0].given.as_deref(), Some("random"));
    let old = &stack.components[2];
    assert_eq!(old.providers[0].alias.as_deref(), Some("west"));
    assert_eq!(old.providers[0].given, None);
    assert_eq!(stack.stacks.len(), 1);
    assert_eq!(stack.stacks[0].name, "network");
    assert_eq!(
        pet.source.resolve(tmp.path()).unwrap(),
        Source::Local(tmp.path().join("pet"))
    );
    assert!(matches!(
        old.source.resolve(tmp.path()).unwrap(),
        Source::Remote { version: Some(v), .. } if v == "1.0.0"
    ));
}

/// The same stack in JSON syntax reads the same.
#[test]
fn json_syntax() {
    let tmp = tempfile::tempdir().unwrap();
    let text = r#"{
  "required_providers": {
    "random": {"source": "hashicorp/random", "version": "~> 3.5.1"}
  },
  "provider": {"random": {"this": {}}},
  "component": {
    "pet": {
      "source": "./pet",
      "providers": {"random": "${provider.random.this}"}
    }
  },
  "removed": [{"from": "stack.gone", "source": "./gone"}]
}"#;
    write(tmp.path(), "stack.tfcomponent.json", text);
    let stack = load(tmp.path()).unwrap();
    assert_eq!(stack.required_providers.len(), 1);
    assert_eq!(stack.required_providers[0].at.line, 3);
    assert_eq!(stack.provider_configs[0].local_name, "random");
    assert_eq!(
        stack.components[0].providers[0].given.as_deref(),
        Some("random")
    );
    assert_eq!(stack.stacks[0].kind, BlockKind::Removed);
    assert_eq!(stack.stacks[0].name, "stack.gone");
}

/// Each way a stack's configuration is refused, with the file and line named.
#[test]
fn refused_stacks() {
    let entry = |body: &str| format!("required_providers {{\n  null = {{\n{body}  }}\n}}\n");
    // What, the stack's files, and the start of the error.
    type Case<'a> = (&'a str, Vec<(&'a str, String)>, &'a str);
    let cases: Vec<Case> = vec![
        (
            "no source",
            vec![("a.tfcomponent.hcl", entry("    version = \"1.0.0\"\n"))],
            "a.tfcomponent.hcl:2: required_providers entry \"null\" has no source",
        ),
        (
            "no version",
            vec![("a.tfcomponent.hcl", entry("    source = \"hashicorp/null\"\n"))],
            "a.tfcomponent.hcl:2: required_providers entry \"null\" has no version",
        ),
        (
            "another key",
            vec![(
                "a.tfcomponent.hcl",
                entry("    source = \"hashicorp/null\"\n    version = \"1.0.0\"\n    configuration_aliases = []\n"),
            )],
            "a.tfcomponent.hcl:5: required_providers entry \"null\" has \"configuration_aliases\"",
        ),
        (
            "two blocks in a file",
            vec![(
                "a.tfcomponent.hcl",
                "required_providers {\n}\nrequired_providers {\n}\n".to_string(),
            )],
            "a.tfcomponent.hcl:3: a second required_providers block",
        ),
        (
            "two blocks in two files",
            vec![
                ("a.tfcomponent.hcl", "required_providers {\n}\n".to_string()),
                ("b.tfcomponent.hcl", "\nrequired_providers {\n}\n".to_string()),
            ],
            "b.tfcomponent.hcl:2: a second required_providers block",
        ),
        (
            "one provider under two names",
            vec![(
                "a.tfcomponent.hcl",
                "required_providers {\n  a = { source = \"hashicorp/null\", version = \"1.0.0\" }\n  b = { source = \"hashicorp/null\", version = \"1.0.0\" }\n}\n".to_string(),
            )],
            "a.tfcomponent.hcl:3: registry.terraform.io/hashicorp/null is already required",
        ),
        (
            "a version for the built-in provider",
            vec![(
                "a.tfcomponent.hcl",
                "required_providers {\n  terraform = {\n    source = \"terraform.io/builtin/terraform\"\n    version = \"1.0.0\"\n  }\n}\n".to_string(),
            )],
            "a.tfcomponent.hcl:4: required_providers entry \"terraform\": terraform.io/builtin/terraform is built in",
        ),
        (
            "a provider block of an undeclared name",
            vec![("a.tfcomponent.hcl", "provider \"aws\" \"this\" {}\n".to_string())],
            "a.tfcomponent.hcl:1: provider \"aws\" \"this\": the required_providers block declares no local name \"aws\"",
        ),
        (
            "a malformed file",
            vec![("a.tfcomponent.hcl", "required_providers {\n".to_string())],
            "a.tfcomponent.hcl:1:22: syntax error",
        ),
        (
            "mixed names",
            vec![
                ("a.tfstack.hcl", String::new()),
                ("b.tfcomponent.hcl", String::new()),
            ],
            "a.tfstack.hcl:1: the stack mixes legacy *.tfstack.* files (a.tfstack.hcl) with *.tfcomponent.* files (b.tfcomponent.hcl)",
        ),
        (
            "another language",
            vec![("a.tfcomponent.hcl", "language = TFStack2030\n".to_string())],
            "a.tfcomponent.hcl:1: invalid language edition TFStack2030",
        ),
        (
            "two components of one name",
            vec![(
                "a.tfcomponent.hcl",
                "component \"a\" {\n  source = \"./a\"\n}\ncomponent \"a\" {\n  source = \"./b\"\n}\n".to_string(),
            )],
            "a.tfcomponent.hcl:4: duplicate component block \"a\"",
        ),
        (
            "a component without a source",
            vec![("a.tfcomponent.hcl", "component \"a\" {\n}\n".to_string())],
            "a.tfcomponent.hcl:1: the block needs a source argument",
        ),
        (
            "a source from a variable",
            vec![("a.tfcomponent.hcl", "component \"a\" {\n  source = var.x\n}\n".to_string())],
            "a.tfcomponent.hcl:2: source must be a literal string",
        ),
    ];
    for (what, files, want) in cases {
        let tmp = tempfile::tempdir().unwrap();
        for (name, text) in &files {
            write(tmp.path(), name, text);
        }
        let err = load(tmp.path()).expect_err(what).to_string();
        let err = err.replace(&format!("{}/", tmp.path().display()), "");
        assert!(
            err.starts_with(want),
            "{what}:\n  got  {err}\n  want {want}"
        );
    }
}

/// A directory named like a stack file is refused; legacy names alone are read, and
/// marked as such.
#[test]
fn directories_and_legacy_names() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(tmp.path().join("x.tfcomponent.hcl")).unwrap();
    let err = load(tmp.path()).unwrap_err().to_string();
    assert!(err.contains("x.tfcomponent.hcl:1: is a directory"), "{err}");

    let tmp = tempfile::tempdir().unwrap();
    write(
        tmp.path(),
        "main.tfstack.hcl",
        "required_providers {\n  null = { source = \"hashicorp/null\", version = \"3.2.1\" }\n}\n",
    );
    let stack = load(tmp.path()).unwrap();
    assert!(stack.legacy);
    assert_eq!(stack.required_providers.len(), 1);
}

/// Sources: local paths, registry addresses with a version, remote packages without
/// one; HCP's component registry is refused.
#[test]
fn sources() {
    let arg = |text: &str, version: Option<&str>| SourceArg {
        text: text.to_string(),
        at: Location {
            file: Path::new("s.tfcomponent.hcl").into(),
            line: 3,
        },
        version: version.map(|v| RawConstraint {
            text: v.to_string(),
            at: Location {
                file: Path::new("s.tfcomponent.hcl").into(),
                line: 4,
            },
        }),
    };
    let dir = Path::new("stacks/app");
    assert_eq!(
        arg("../../modules/vm", None).resolve(dir).unwrap(),
        Source::Local(PathBuf::from("modules/vm"))
    );
    assert!(matches!(
        arg("hashicorp/consul/aws", Some("~> 0.1"))
            .resolve(dir)
            .unwrap(),
        Source::Remote {
            source: ModuleSource::Registry(_),
            ..
        }
    ));
    assert!(matches!(
        arg("git::https://example.com/x.git?ref=v1", None)
            .resolve(dir)
            .unwrap(),
        Source::Remote {
            source: ModuleSource::Git(_),
            version: None
        }
    ));
    let refused = [
        (
            arg("hashicorp/consul/aws", None),
            "needs a version argument",
        ),
        (arg("./x", Some("1.0.0")), "takes no version argument"),
        (
            arg("git::https://example.com/x.git", Some("1.0.0")),
            "takes no version argument",
        ),
        (
            arg("example.com/awesomecorp/tfstack-pet-nulls", Some("0.0.2")),
            "private registry of stacks",
        ),
    ];
    for (arg, want) in refused {
        let err = arg.resolve(dir).unwrap_err().to_string();
        assert!(err.contains(want), "{}: {err}", arg.text);
        assert!(err.starts_with("s.tfcomponent.hcl:3:"), "{err}");
    }
}
