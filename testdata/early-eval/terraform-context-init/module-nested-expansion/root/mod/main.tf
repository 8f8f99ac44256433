
locals {
  source = var.namespace
}
variable "namespace" {
  type      = string
  const = true
}
module "terraform" {
  source = "{{MODULES}}/${var.namespace}/helm/kubernetes"
}
output "name" {
  value = "fooo"
}
