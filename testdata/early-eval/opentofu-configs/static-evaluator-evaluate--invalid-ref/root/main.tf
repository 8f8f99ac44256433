locals {
  invalid_ref = invalid.attribute
}

module "mod" {
  source = "./modules/${local.invalid_ref}"
}
