terraform {
  required_providers {
    aws = {
      source  = "{{REGISTRY}}/hashicorp/aws"
      version = ">= 4.0"
    }
  }
}
