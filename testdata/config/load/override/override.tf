# The whole aws entry is replaced: the source changes and the version disappears.
terraform {
  required_providers {
    aws = {
      source = "example.com/acme/aws"
    }
  }
}

provider "random" {
  version = "3.2.0"
}

resource "aws_instance" "a" {
  provider = special
}

module "child" {
  source = "./new"
}
