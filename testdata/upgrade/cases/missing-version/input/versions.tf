terraform {
  required_providers {
    aws = {
      source = "hashicorp/aws"
    }
    google = {
      source  = "hashicorp/google"
      version = ""
    }
    random = {}
  }
}

terraform {
  backend "s3" {}
}

provider "aws" {
  region = "us-east-1"
}

module "vpc" {
  source = "terraform-aws-modules/vpc/aws"
}
