terraform {
  required_version = ">= 1.1"

  required_providers {
    aws = {
      source  = "{{REGISTRY}}/hashicorp/aws"
      version = "~> 5.30.0"
    }
  }
}
