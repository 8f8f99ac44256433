variable "str_def" {
  type    = string
  default = "sane default"
}

locals {
  var_str_def_ref = var.str_def
}

module "mod" {
  source = "./modules/${local.var_str_def_ref}"
}
