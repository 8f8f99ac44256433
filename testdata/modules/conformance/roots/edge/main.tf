# Nested remote modules: the registry module calls a registry module and a git module.
terraform {
  required_providers {
    null = {
      source = "{{REGISTRY}}/hashicorp/null"
    }
  }
}

module "net" {
  source = "{{MODULES}}/acme/net/aws"
}

module "latest_vpc" {
  source = "{{MODULES}}/acme/vpc/aws"
}
