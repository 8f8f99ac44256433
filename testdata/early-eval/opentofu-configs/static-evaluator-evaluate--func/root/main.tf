locals {
  func = md5("my-string")
}

module "mod" {
  source = "./modules/${local.func}"
}
