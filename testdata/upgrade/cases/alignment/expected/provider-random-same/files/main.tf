locals {
  name   = "network"
  region = "eu-west-1"
  tags = {
    Team = "platform"
  }
}

provider "aws" {
  region  = local.region
  version = "~> 5.0"
}

output "name" { value = local.name }

resource "aws_vpc" "main" {
  cidr_block = "10.0.0.0/16"
  tags       = merge(local.tags, { Name = local.name })
}
