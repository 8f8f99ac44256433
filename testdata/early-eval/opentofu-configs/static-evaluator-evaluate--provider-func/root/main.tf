locals {
  provider_func = provider::type::fn("my-string")
}

module "mod" {
  source = "./modules/${local.provider_func}"
}
