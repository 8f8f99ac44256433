locals {
  var_missing = var.missing
}

module "mod" {
  source = "./modules/${local.var_missing}"
}
