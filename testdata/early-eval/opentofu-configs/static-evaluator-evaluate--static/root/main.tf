locals {
  static = "static"
}

module "mod" {
  source = "./modules/${local.static}"
}
