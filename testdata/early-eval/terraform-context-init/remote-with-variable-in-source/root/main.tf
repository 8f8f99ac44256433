
variable "name" {
  type = string
  const = true
}
module "example2" {
  source  = "{{MODULES}}/terraform-iaac/${var.name}/kubernetes"
}
