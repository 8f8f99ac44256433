
module "foo" {
  source = "./path"
}