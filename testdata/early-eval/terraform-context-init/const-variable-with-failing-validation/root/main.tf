
variable "name" {
  type  = string
  const = true

  validation {
    condition     = var.name != "bad"
    error_message = "must not be bad"
  }
}
module "example" {
    source = "./modules/${var.name}"
}
