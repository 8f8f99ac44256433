
variable "name" {
  type  = string
  const = true

  validation {
    condition     = var.name != ""
    error_message = "must not be empty"
  }
}
module "example" {
    source = "./modules/${var.name}"
}
