variable "str" {
  type = string
}

locals {
  var_str_ref = var.str
}

module "mod" {
  source = "./modules/${local.var_str_ref}"
}
