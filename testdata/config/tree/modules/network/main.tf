terraform {
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = ">= 4.0"
    }
  }
}

module "subnet" {
  source = "./subnet"
}

resource "aws_vpc" "this" {}
