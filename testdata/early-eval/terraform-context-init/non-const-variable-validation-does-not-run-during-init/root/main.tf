
variable "some" {
 type = string
}
variable "name" {
  type    = string
  default = "bad"

  validation {
    condition     = var.name != var.some
    error_message = "must not be bad"
  }
}
module "example" {
    source = "./modules/example"

    name = var.name
}
