module "example" {
  source = "./modules/example"
}
