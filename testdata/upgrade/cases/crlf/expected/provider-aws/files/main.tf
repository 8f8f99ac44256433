module "vpc" {
  source  = "terraform-aws-modules/vpc/aws"
  version = "5.0.0"
}

module "dns" {
  source = "git::https://github.com/example-org/terraform-dns.git?ref=v0.4.0"
}

provider "aws" {
  region  = "us-east-1"
  version = "6.0.0"
}

locals {
  banner = <<EOT
Managed by Terraform.
EOT
}
