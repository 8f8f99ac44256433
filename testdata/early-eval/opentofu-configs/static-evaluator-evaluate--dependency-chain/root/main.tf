variable "str" {
  type = string
}

locals {
  ref_a = var.str
  ref_b = local.ref_a
  ref_c = local.ref_b
}

module "mod" {
  source = "./modules/${local.ref_c}"
}
