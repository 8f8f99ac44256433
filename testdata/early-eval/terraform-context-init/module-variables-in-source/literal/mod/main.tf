
variable "name" {
  type = string
}
module "example" {
  source  = "{{MODULES}}/terraform-iaac/cert-manager/kubernetes"
}
					