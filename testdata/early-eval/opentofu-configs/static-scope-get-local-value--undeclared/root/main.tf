# This module intentionally left blank

module "mod" {
  source = "./modules/${local.nonexist}"
}
