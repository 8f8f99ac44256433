
variable "name" {
  type  = string
  const = true
}

module "name" {
  source = var.name
}
