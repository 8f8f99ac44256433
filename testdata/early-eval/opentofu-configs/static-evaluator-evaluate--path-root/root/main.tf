locals {
  path_root = path.root
}

module "mod" {
  source = "${local.path_root}/modules/example"
}
