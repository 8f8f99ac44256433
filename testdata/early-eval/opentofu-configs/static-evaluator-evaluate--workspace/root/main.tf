locals {
  ws = terraform.workspace
}

module "mod" {
  source = "./modules/${local.ws}"
}
