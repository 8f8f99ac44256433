module "network" {
  source = "git::https://github.com/example-org/terraform-modules.git//network?ref=v1.2.3"
}

module "network_root" {
  source = "git::https://github.com/example-org/terraform-modules.git?ref=v1.2.3"
}

module "vpc_github" {
  source = "github.com/example-org/terraform-aws-vpc?ref=v2.0.0"
}

module "subnets_github" {
  source = "github.com/example-org/terraform-aws-vpc//modules/subnets?ref=v2.0.0"
}

module "vpc_scp" {
  source = "git@github.com:example-org/terraform-aws-vpc.git?ref=v2.0.0"
}

module "vpc_ssh" {
  source = "git::ssh://git@github.com/example-org/terraform-aws-vpc.git?ref=v2.0.0"
}

module "dns_bitbucket" {
  source = "bitbucket.org/example-org/terraform-modules//dns?ref=v0.9.0"
}
