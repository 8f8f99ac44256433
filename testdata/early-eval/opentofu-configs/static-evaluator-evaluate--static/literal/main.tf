locals {
  static = "static"
}

module "mod" {
  source = "./modules/static"
}
