
variable "name" {
  type = string
  const = true
}

locals {
  org_and_repo = "{{MODULES}}/terraform-iaac/${var.name}"
}

module "example2" {
  source  = "${local.org_and_repo}/kubernetes"
}
