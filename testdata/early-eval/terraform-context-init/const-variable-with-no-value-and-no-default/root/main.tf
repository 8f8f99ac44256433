
variable "name" {
  type = string
  const = true
}
module "example" {
    source = "./modules/${var.name}"
}
