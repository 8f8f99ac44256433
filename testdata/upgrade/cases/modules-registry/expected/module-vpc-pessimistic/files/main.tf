module "vpc" {
  source  = "terraform-aws-modules/vpc/aws"
  version = "~> 5.1"

  name = "main"
  cidr = "10.0.0.0/16"
}

module "vpc_secondary" {
  source  = "terraform-aws-modules/vpc/aws"
  version = "~> 5.1"

  name = "secondary"
  cidr = "10.1.0.0/16"
}

module "vpc_explicit_host" {
  source  = "registry.terraform.io/terraform-aws-modules/vpc/aws"
  version = "5.0.0"

  name = "explicit"
}

module "iam_user" {
  source  = "terraform-aws-modules/iam/aws//modules/iam-user"
  version = "5.30.0"

  name = "deployer"
}

module "eks" {
  source  = "terraform-aws-modules/eks/aws"
  version = ">= 19.0, < 20.0"
}

module "s3_unpinned" {
  source = "terraform-aws-modules/s3-bucket/aws"
}

module "private" {
  source  = "app.terraform.io/example-org/network/aws"
  version = "1.2.0"
}

module "naming" {
  source = "./modules/naming"
}
