module "vpc" {
  source  = "terraform-aws-modules/vpc/aws"
  version = "5.1.0"
}

module "dns" {
  source = "git::https://example.com/dns.git"
}
