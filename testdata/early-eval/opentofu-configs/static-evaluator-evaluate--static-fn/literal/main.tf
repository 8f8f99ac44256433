locals {
  static    = "static"
  static_fn = md5(local.static)
}

module "mod" {
  source = "./modules/a81259cef8e959c624df1d456e5d3297"
}
