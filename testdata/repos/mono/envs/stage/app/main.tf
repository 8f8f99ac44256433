terraform {
  required_providers {
    aws = {
      source  = "{{REGISTRY}}/hashicorp/aws"
      version = "~> 5.31.0"
    }
    null = {
      source  = "{{REGISTRY}}/hashicorp/null"
      version = "~> 3.2"
    }
  }
}

module "app" {
  source = "../../../modules/app"
}
