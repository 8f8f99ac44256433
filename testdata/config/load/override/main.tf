terraform {
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = "~> 4.0"
    }
    random = {
      source  = "hashicorp/random"
      version = "~> 3.0"
    }
  }
}

provider "random" {
  version = "3.1.0"
}

resource "aws_instance" "a" {}

module "child" {
  source = "./old"
}
