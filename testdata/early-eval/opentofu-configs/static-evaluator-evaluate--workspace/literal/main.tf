locals {
  ws = terraform.workspace
}

module "mod" {
  source = "./modules/my-workspace"
}
