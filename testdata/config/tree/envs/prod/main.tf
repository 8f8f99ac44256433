terraform {
  backend "s3" {
    bucket = "state"
  }

  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = "~> 5.0"
    }
  }
}

module "network" {
  source = "../../modules/network"
}

module "locked" {
  source = "../../modules/locked"
}

resource "aws_s3_bucket" "logs" {}
