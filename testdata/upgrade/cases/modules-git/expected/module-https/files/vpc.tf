module "vpc" {
  source = "git::https://github.com/example-org/terraform-aws-vpc.git?ref=v1.3.0"

  cidr = "10.0.0.0/16"
}

module "vpc_shallow" {
  source = "git::https://github.com/example-org/terraform-aws-vpc.git?ref=v1.3.0"
}

module "vpc_depth_first" {
  source = "git::https://github.com/example-org/terraform-aws-vpc.git?depth=1&ref=v1.2.3"
}

module "vpc_no_v" {
  source = "git::https://github.com/example-org/terraform-aws-vpc.git?ref=1.2.3"
}

module "vpc_prerelease" {
  source = "git::https://github.com/example-org/terraform-aws-vpc.git?ref=v1.3.0"
}

module "vpc_two_parts" {
  source = "git::https://github.com/example-org/terraform-aws-vpc.git?ref=v1.3.0"
}

module "vpc_branch" {
  source = "git::https://github.com/example-org/terraform-aws-vpc.git?ref=main"
}

module "vpc_commit" {
  source = "git::https://github.com/example-org/terraform-aws-vpc.git?ref=2f4b1e9c0d7a5b3e8f6a1c2d4e5f60718293a4b5"
}

module "vpc_refs_tags" {
  source = "git::https://github.com/example-org/terraform-aws-vpc.git?ref=refs/tags/v1.2.3"
}

module "vpc_unpinned" {
  source = "git::https://github.com/example-org/terraform-aws-vpc.git"
}

module "vpc_unpinned_with_version" {
  source  = "git::https://github.com/example-org/terraform-aws-vpc.git"
  version = "1.3.0"
}
