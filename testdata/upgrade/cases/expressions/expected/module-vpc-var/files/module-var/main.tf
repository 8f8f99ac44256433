module "vpc" {
  source  = "terraform-aws-modules/vpc/aws"
  version = "5.1.0"
}

module "vpc_templated_source" {
  source = "git::https://github.com/example-org/terraform-aws-vpc.git?ref=v${local.vpc_version}"
}
