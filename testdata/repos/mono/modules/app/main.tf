# Shared by every env: one level below the roots.
terraform {
  required_providers {
    null = {
      source  = "{{REGISTRY}}/hashicorp/null"
      version = "~> 3.1"
    }
  }
}

module "network" {
  source = "../network"
}

resource "null_resource" "app" {}
