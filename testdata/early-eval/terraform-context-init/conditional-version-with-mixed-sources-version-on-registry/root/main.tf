
variable "use_local" {
  type  = bool
  const = true
}

locals {
  source = var.use_local ? "./modules/local" : "{{MODULES}}/terraform-aws-modules/vpc/aws"
}

module "example" {
  source  = local.source
  version = var.use_local ? null : "5.0.0"
}
