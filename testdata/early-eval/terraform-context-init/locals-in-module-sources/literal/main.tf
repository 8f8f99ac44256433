
variable "name" {
  type = string
}

locals {
  org_and_repo = "{{MODULES}}/terraform-iaac/${var.name}"
}

module "example2" {
  source  = "{{MODULES}}/terraform-iaac/cert-manager/kubernetes"
}
