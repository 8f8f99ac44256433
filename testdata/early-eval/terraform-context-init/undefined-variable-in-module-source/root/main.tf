
variable "name" {
  type = string
  const = true
}
module "example2" {
  source  = "terraform-iaac/${var.name}/kubernetes"
}
