
variable "name" {
  type = string
  default = "example"
}
module "example" {
  source = "./modules/example"
  name = "./modules/${var.name}2"
}
