terraform {
  required_providers {
    null = {
      source  = "{{REGISTRY}}/hashicorp/null"
      version = "~> 3.2"
    }
  }
}

module "endpoints" {
  source = "./modules/endpoints"
}
