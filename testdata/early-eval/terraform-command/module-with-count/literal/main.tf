variable "module_name" {
  type  = string
}

module "example" {
  source = "./modules/example"
  count  = 2
  number = count.index
}
