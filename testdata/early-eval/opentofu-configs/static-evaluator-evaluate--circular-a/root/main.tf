locals {
  circular_a = local.circular_b
  circular_b = local.circular_a
}

module "mod" {
  source = "./modules/${local.circular_a}"
}
