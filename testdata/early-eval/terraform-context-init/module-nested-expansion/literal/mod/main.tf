
locals {
  source = var.namespace
}
variable "namespace" {
  type      = string
}
module "terraform" {
  source = "{{MODULES}}/terraform-iaac/helm/kubernetes"
}
output "name" {
  value = "fooo"
}
