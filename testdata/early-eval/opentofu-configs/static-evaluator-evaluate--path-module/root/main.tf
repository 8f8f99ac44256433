locals {
  path_module = path.module
}

module "mod" {
  source = "${local.path_module}/modules/example"
}
