terraform {
  required_providers {
    random = {
      source  = "{{REGISTRY}}/hashicorp/random"
      version = "~> 3.6"
    }
  }
}

# A local call inside the repository.
module "zone" {
  source = "../zone"
}
