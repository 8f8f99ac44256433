//! Conformance: tfsum and real Terraform v1.0.3 (`terraform providers lock`) run on
//! identical copies of a configuration against the same fake registry must leave
//! byte-identical lock files.

use crate::support::fake_registry::FakeRegistry;
use crate::twin::Twin;

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

#[test]
fn one_provider_one_platform() {
    let registry = registry();
    let case = Twin::new(
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
    let lock = case.assert_same(".", &["linux_amd64"]);
    assert!(lock.contains("constraints = \"3.2.1\""), "{lock}");
}

#[test]
fn three_providers_three_platforms_with_ranges() {
    let registry = registry();
    let case = Twin::new(
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
    let lock = case.assert_same(".", &["linux_amd64", "darwin_arm64", "windows_amd64"]);
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
    let first = Twin::new(&registry, &files);
    let darwin = first.assert_same(".", &["darwin_arm64"]);
    let case = Twin::new(&registry, &files);
    case.with_lock(
        ".",
        &darwin.replace("hashes = [\n", "hashes = [\n    \"h1:invalid-but-kept\",\n"),
    );
    let merged = case.assert_same(".", &["linux_amd64"]);
    assert!(merged.contains("h1:invalid-but-kept"), "{merged}");
}

#[test]
fn package_with_binary_and_license() {
    let registry = registry();
    let case = Twin::new(
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
    let lock = case.assert_same(".", ALL);
    assert!(!lock.contains("constraints"), "{lock}");
}

#[test]
fn module_tree_implied_and_legacy_providers() {
    let registry = registry();
    let case = Twin::new(
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
    let lock = case.assert_same(".", &["linux_amd64", "darwin_arm64"]);
    assert!(lock.contains("version     = \"4.67.0\""), "{lock}");
    assert!(!lock.contains("terraform.io/builtin"), "{lock}");
    let _ = case.tfsum_dir();
}
