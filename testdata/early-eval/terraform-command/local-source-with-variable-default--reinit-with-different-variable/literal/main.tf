variable "module_name" {
  type    = string
  default = "example"
}

module "example" {
  source = "./modules/alternate"
}
