
variable "name" {
  type = string
}

module "nested" {
    source = "./modules/${var.name}"
}
					