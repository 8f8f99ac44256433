//! Conformance: tfsum and real Terraform v1.0.3 (`terraform providers lock`) run on
//! identical copies of a configuration against the same fake registry must leave
//! byte-identical lock files.

use std::path::Path;

use pretty_assertions::assert_eq;
use tempfile::TempDir;

use crate::support::fake_registry::{FakeRegistry, RegistryHandle};
use crate::support::terraform;
use crate::tfsum;

const ALL: &[&str] = &[
    "linux_amd64",
    "darwin_arm64",
    "darwin_amd64",
    "windows_amd64",
];

/// The registry every conformance case uses: several providers and versions, one
/// package holding a binary and a LICENSE, one prerelease.
fn registry() -> FakeRegistry {
    FakeRegistry::builder()
        .provider("hashicorp", "null")
        .version("3.1.0")
        .platforms(ALL)
        .version("3.2.1")
        .platforms(ALL)
        .version("3.3.0-beta1")
        .platforms(ALL)
        .provider("hashicorp", "random")
        .version("3.5.1")
        .platforms(ALL)
        .version("3.6.0")
        .platforms(ALL)
        .provider("hashicorp", "aws")
        .version("4.67.0")
        .platforms(ALL)
        .version("5.30.0")
        .platforms(ALL)
        .version("5.31.0")
        .platforms(ALL)
        .provider("acme", "widget")
        .version("1.0.0")
        .platforms(ALL)
        .binary()
        .file("LICENSE", "Licensed for testing only.\n")
        .start()
}

/// A configuration copied twice, once for each tool, plus the CLI config.
struct Case {
    terraform: TempDir,
    tfsum: TempDir,
    scratch: TempDir,
}

impl Case {
    fn new(registry: &RegistryHandle, files: &[(&str, &str)]) -> Case {
        let scratch = TempDir::new().unwrap();
        registry.write_cli_config(&scratch.path().join("cli.tfrc"));
        Case {
            terraform: terraform::module_dir(files, &registry.host()),
            tfsum: terraform::module_dir(files, &registry.host()),
            scratch,
        }
    }

    fn cli_config(&self) -> std::path::PathBuf {
        self.scratch.path().join("cli.tfrc")
    }

    /// Puts the same existing lock file in both copies.
    fn with_lock(&self, content: &str) {
        for dir in [self.terraform.path(), self.tfsum.path()] {
            std::fs::write(dir.join(".terraform.lock.hcl"), content).unwrap();
        }
    }

    /// Runs both tools for `platforms` and asserts identical lock files; returns it.
    fn assert_same(&self, platforms: &[&str]) -> String {
        let tf_dir = self.terraform.path();
        // Terraform loads child modules through its module manifest, even local ones.
        let get = terraform::run(tf_dir, &self.cli_config(), &["get"]);
        terraform::assert_success(&get, "terraform get");
        let out = terraform::providers_lock(tf_dir, platforms, &self.cli_config());
        terraform::assert_success(&out, "terraform providers lock");
        let want = terraform::read_lock_file(tf_dir);

        let mut args = vec!["lock".to_string()];
        for p in platforms {
            args.push(format!("--platform={p}"));
        }
        args.push(".".to_string());
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = tfsum::run(
            self.tfsum.path(),
            &self.cli_config(),
            self.scratch.path(),
            &args,
        );
        tfsum::assert_ok(&out);
        let got = terraform::read_lock_file(self.tfsum.path());
        assert_eq!(got, want, "tfsum (left) vs Terraform (right)");
        got
    }

    fn tfsum_dir(&self) -> &Path {
        self.tfsum.path()
    }
}

#[test]
fn one_provider_one_platform() {
    let registry = registry();
    let case = Case::new(
        &registry,
        &[(
            "main.tf",
            r#"terraform {
  required_providers {
    null = {
      source  = "{{REGISTRY}}/hashicorp/null"
      version = "3.2.1"
    }
  }
}
"#,
        )],
    );
    let lock = case.assert_same(&["linux_amd64"]);
    assert!(lock.contains("constraints = \"3.2.1\""), "{lock}");
}

#[test]
fn three_providers_three_platforms_with_ranges() {
    let registry = registry();
    let case = Case::new(
        &registry,
        &[(
            "versions.tf",
            r#"terraform {
  required_providers {
    null   = { source = "{{REGISTRY}}/hashicorp/null", version = "~> 3.1" }
    random = { source = "{{REGISTRY}}/hashicorp/random", version = ">= 3.5.0, < 3.6.0" }
    aws = {
      source  = "{{REGISTRY}}/hashicorp/aws"
      version = "~> 5.30.0, != 5.30.1"
    }
  }
}
"#,
        )],
    );
    let lock = case.assert_same(&["linux_amd64", "darwin_arm64", "windows_amd64"]);
    assert!(lock.contains("version     = \"3.2.1\""), "{lock}");
    assert!(lock.contains("version     = \"5.30.0\""), "{lock}");
}

#[test]
fn merges_an_existing_lock_with_another_platforms_hashes() {
    let registry = registry();
    let files = [(
        "main.tf",
        r#"terraform {
  required_providers {
    null = { source = "{{REGISTRY}}/hashicorp/null", version = "3.2.1" }
    aws  = { source = "{{REGISTRY}}/hashicorp/aws", version = ">= 4.0" }
  }
}
"#,
    )];
    // Terraform writes the darwin_arm64 lock; both tools then add linux_amd64 to it.
    let first = Case::new(&registry, &files);
    let darwin = first.assert_same(&["darwin_arm64"]);
    let case = Case::new(&registry, &files);
    case.with_lock(&darwin.replace("hashes = [\n", "hashes = [\n    \"h1:invalid-but-kept\",\n"));
    let merged = case.assert_same(&["linux_amd64"]);
    assert!(merged.contains("h1:invalid-but-kept"), "{merged}");
}

#[test]
fn package_with_binary_and_license() {
    let registry = registry();
    let case = Case::new(
        &registry,
        &[(
            "main.tf",
            r#"terraform {
  required_providers {
    widget = { source = "{{REGISTRY}}/acme/widget" }
  }
}
"#,
        )],
    );
    let lock = case.assert_same(ALL);
    assert!(!lock.contains("constraints"), "{lock}");
}

#[test]
fn module_tree_implied_and_legacy_providers() {
    let registry = registry();
    let case = Case::new(
        &registry,
        &[
            (
                "main.tf",
                r#"terraform {
  required_providers {
    null = { source = "{{REGISTRY}}/hashicorp/null", version = ">= 3.0.0" }
  }
}

module "network" {
  source = "./modules/network"
}

resource "null_resource" "x" {}
"#,
            ),
            (
                "modules/network/main.tf",
                r#"terraform {
  required_providers {
    null   = { source = "{{REGISTRY}}/hashicorp/null", version = "~> 3.1, >= 3.1.0" }
    random = { source = "{{REGISTRY}}/hashicorp/random" }
  }
}

module "ids" {
  source = "../ids"
}
"#,
            ),
            (
                "modules/ids/main.tf",
                r#"terraform {
  required_providers {
    random = { source = "{{REGISTRY}}/hashicorp/random", version = "3.5.1" }
    aws    = { source = "{{REGISTRY}}/hashicorp/aws" }
  }
}

provider "aws" {
  version = "~> 4.0"
}

data "terraform_remote_state" "x" {
  backend = "local"
}
"#,
            ),
        ],
    );
    let lock = case.assert_same(&["linux_amd64", "darwin_arm64"]);
    assert!(lock.contains("version     = \"4.67.0\""), "{lock}");
    assert!(!lock.contains("terraform.io/builtin"), "{lock}");
    let _ = case.tfsum_dir();
}
