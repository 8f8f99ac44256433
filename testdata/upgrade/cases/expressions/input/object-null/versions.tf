terraform {
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = null
    }
  }
}
