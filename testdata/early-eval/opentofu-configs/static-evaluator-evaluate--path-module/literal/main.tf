locals {
  path_module = path.module
}

module "mod" {
  source = "./modules/example"
}
