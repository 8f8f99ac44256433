locals {
  foo = "bar"
}

module "mod" {
  source = "./modules/${local.foo}"
}
