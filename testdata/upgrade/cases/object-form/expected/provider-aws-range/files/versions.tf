terraform {
  required_version = ">= 1.5.0"

  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = ">= 5.0, < 7.0"
    }
    google = {
      source  = "hashicorp/google"
      version = ">= 4.80, < 6.0"
    }
    random = {
      source  = "hashicorp/random"
      version = "3.6.0"
    }
    kubernetes = {
      source = "hashicorp/kubernetes"
    }
    github = {
      source  = "integrations/github"
      version = "~> 6.0"
    }
  }
}
