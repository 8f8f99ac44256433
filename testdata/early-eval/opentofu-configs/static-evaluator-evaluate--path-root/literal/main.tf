locals {
  path_root = path.root
}

module "mod" {
  source = "./modules/example"
}
