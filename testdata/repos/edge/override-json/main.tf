terraform {
  required_providers {
    aws = {
      source  = "{{REGISTRY}}/hashicorp/aws"
      version = "~> 5.30.0"
    }
    null = {
      source  = "{{REGISTRY}}/hashicorp/null"
      version = "~> 3.0"
    }
  }
}
