module "vpc" {
  source  = "terraform-aws-modules/vpc/aws"
  version = "5.1.0"
}

terraform {
  required_providers {
    random = "~> 3.5"
  }
}

# last line is a comment without a newline