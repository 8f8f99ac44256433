locals {
  circular     = local.circular
  circular_ref = local.circular
}

module "mod" {
  source = "./modules/${local.circular_ref}"
}
