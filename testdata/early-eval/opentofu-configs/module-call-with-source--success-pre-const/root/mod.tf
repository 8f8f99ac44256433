
module "foo" {
  source = var.path
}