terraform {
  required_providers {
    aws = {
      source  = "{{REGISTRY}}/hashicorp/aws"
      version = ">= 5.0"
    }
  }
}
