locals {
  func = md5("my-string")
}

module "mod" {
  source = "./modules/f887f41a53a46e2d40a3f8f86cacaaa2"
}
