terraform {
  required_providers {
    random = {
      source  = "{{REGISTRY}}/HashiCorp/Random"
      version = ">=3.5,<3.6.0"
    }
  }
}

module "child" {
  source = "./child/"
}
