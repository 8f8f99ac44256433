locals {
  static    = "static"
  static_fn = md5(local.static)
}

module "mod" {
  source = "./modules/${local.static_fn}"
}
