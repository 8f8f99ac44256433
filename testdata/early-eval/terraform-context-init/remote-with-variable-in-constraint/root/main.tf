
variable "name" {
  type = string
  const = true
}
module "example2" {
  source  = "{{MODULES}}/terraform-iaac/cert-manager/kubernetes"
  version = ">= ${var.name}"
}
