terraform {
  required_version = ">= 1.4"

  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = "6.0.0"
    }
    google = {
      source  = "hashicorp/google"
      version = "~> 5.0"
    }
    random = "3.6.0"
  }
}
