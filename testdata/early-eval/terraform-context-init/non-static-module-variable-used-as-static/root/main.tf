
module "example" {
  source = "./modules/example"

  name = "foo"
}
