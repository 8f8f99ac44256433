
module "example" {
  for_each = toset(["cert-manager", "helm"])
  source  = "terraform-iaac/${each.key}/kubernetes"
}
