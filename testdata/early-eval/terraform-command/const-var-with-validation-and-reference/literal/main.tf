variable "const_var" {
  type  = string

}

variable "non_const_var" {
  type = string
}

module "example" {
  source = "./modules/example"
  in     = var.const_var
}
