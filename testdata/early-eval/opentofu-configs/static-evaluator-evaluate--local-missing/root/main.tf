locals {
  local_missing = local.missing
}

module "mod" {
  source = "./modules/${local.local_missing}"
}
