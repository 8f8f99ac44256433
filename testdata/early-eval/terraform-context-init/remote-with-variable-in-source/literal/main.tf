
variable "name" {
  type = string
}
module "example2" {
  source  = "{{MODULES}}/terraform-iaac/cert-manager/kubernetes"
}
