terraform {
  required_providers {
    aws = {
      source  = "{{REGISTRY}}/hashicorp/aws"
      version = "~> 5.0"
    }
  }
  required_version = ">= 1.5.7"
}
