module "vpc" {
  source  = "terraform-aws-modules/vpc/aws"
  version = "5.0.0"
}

terraform {
  required_providers {
    random = "3.6.2"
  }
}

# last line is a comment without a newline