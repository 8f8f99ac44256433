module "example" {
  source = "./modules/${terraform.workspace}"
}
