# A root of its own (it has a backend) that envs/dev/app also calls as a module.
terraform {
  backend "local" {
    path = "dns.tfstate"
  }

  required_providers {
    random = {
      source  = "{{REGISTRY}}/hashicorp/random"
      version = "3.5.1"
    }
  }
}

resource "random_pet" "zone" {}
