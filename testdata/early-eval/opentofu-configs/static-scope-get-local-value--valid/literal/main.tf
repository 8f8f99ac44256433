locals {
  foo = "bar"
}

module "mod" {
  source = "./modules/bar"
}
