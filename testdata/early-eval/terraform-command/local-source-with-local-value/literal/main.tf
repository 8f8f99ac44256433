variable "module_name" {
  type  = string
}

locals {
  module_path = "./modules/${var.module_name}"
}

module "example" {
  source = "./modules/example"
}
