variable "module_name" {
  type  = string
}

module "child" {
  source = "./modules/child"
}
