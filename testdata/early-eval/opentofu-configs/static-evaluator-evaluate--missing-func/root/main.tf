locals {
  missing_func = missing_fn("my-string")
}

module "mod" {
  source = "./modules/${local.missing_func}"
}
