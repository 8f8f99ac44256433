terraform {
  required_version = ">= 1.5" # CI image

  required_providers {
    aws = {
      source  = "hashicorp/aws" # official
      version = "~> 5.0"        # bump with the modules
    }
    google = {
      source  = "hashicorp/google" # official
      version = "6.0.0"            # range
    }
    random = "~> 3.5" # legacy
    tls    = "~> 4.0" # legacy
  }
}

provider "aws" {
  region  = "us-east-1" # default region
  version = "~> 5.0"    # deprecated
}

module "vpc" {
  source  = "terraform-aws-modules/vpc/aws" # registry
  version = "5.0.0"                         # exact
}
