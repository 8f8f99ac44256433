
variable "name" {
  type = string
  const = true
  default = "example"
}
module "example" {
    source = "./modules/${var.name}"
}
