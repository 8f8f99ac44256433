locals {
  circular = local.circular
}

module "mod" {
  source = "./modules/${local.circular}"
}
