terraform {
  required_providers {
    mynull = {
      source  = "{{REGISTRY}}/hashicorp/null"
      version = "3.1.0"
    }
  }
}

resource "null_resource" "a" {
  provider = mynull
}

module "child" {
  source = "./child"
}
