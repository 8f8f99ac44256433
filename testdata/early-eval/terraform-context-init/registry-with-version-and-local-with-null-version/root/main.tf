
module "vpc" {
  source  = "{{MODULES}}/terraform-aws-modules/vpc/aws"
  version = "~> 5.0"
}

module "local" {
  source  = "./modules/local"
  version = null
}
