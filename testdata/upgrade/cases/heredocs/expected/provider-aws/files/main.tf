locals {
  # Documentation rendered into the README; it quotes a configuration.
  readme = <<EOT
To use this module:

terraform {
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = "~> 5.0"
    }
  }
}

module "vpc" {
  source  = "terraform-aws-modules/vpc/aws"
  version = "5.0.0"
}
EOT

  user_data = <<-SCRIPT
    #!/bin/bash
    echo "provider aws version = ~> 5.0"
      terraform version
  SCRIPT
}

resource "aws_iam_policy" "read" {
  name   = "read"
  policy = <<POLICY
{
  "Version": "2012-10-17",
  "Statement": [
    {"Effect": "Allow", "Action": "s3:GetObject", "Resource": "*"}
  ]
}
POLICY
}

provider "aws" {
  region  = "us-east-1"
  version = "6.0.0"
}

module "vpc" {
  source  = "terraform-aws-modules/vpc/aws"
  version = "5.0.0"
  name    = "main"
}
