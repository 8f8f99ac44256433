locals {
  static     = "static"
  static_ref = local.static
}

module "mod" {
  source = "./modules/${local.static_ref}"
}
