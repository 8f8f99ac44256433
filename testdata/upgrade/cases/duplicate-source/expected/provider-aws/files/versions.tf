terraform {
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = "6.0.0"
    }
    aws_legacy = {
      source  = "hashicorp/aws"
      version = "~> 4.0"
    }
  }
}
