terraform {
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = "~> 5.0"
    }
    aws_legacy = {
      source  = "hashicorp/aws"
      version = "~> 4.0"
    }
  }
}
