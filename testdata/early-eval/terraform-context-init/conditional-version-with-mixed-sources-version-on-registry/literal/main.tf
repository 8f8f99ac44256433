
variable "use_local" {
  type  = bool
}

locals {
  source = var.use_local ? "./modules/local" : "{{MODULES}}/terraform-aws-modules/vpc/aws"
}

module "example" {
  source  = "{{MODULES}}/terraform-aws-modules/vpc/aws"
  version = "5.0.0"
}
