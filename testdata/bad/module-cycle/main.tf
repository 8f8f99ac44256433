terraform {
  required_providers {
    random = {
      source  = "{{REGISTRY}}/hashicorp/random"
      version = "3.6.0"
    }
  }
}

module "a" {
  source = "./a"
}
