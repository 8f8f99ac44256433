module "vpc" {
  source  = "terraform-aws-modules/vpc/aws"
  version = local.vpc_version
}

module "vpc_templated_source" {
  source = "git::https://github.com/example-org/terraform-aws-vpc.git?ref=v${local.vpc_version}"
}
