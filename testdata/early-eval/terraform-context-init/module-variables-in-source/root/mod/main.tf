
variable "name" {
  type = string
  const = true
}
module "example" {
  source  = "{{MODULES}}/terraform-iaac/${var.name}/kubernetes"
}
					