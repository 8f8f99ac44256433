# Written on Windows.
terraform {
  required_version = ">= 1.5"

  required_providers {
    aws = {
      source  = "hashicorp/aws" # official
      version = "~> 5.0"
    }
    random = "~> 3.5"
  }
}
