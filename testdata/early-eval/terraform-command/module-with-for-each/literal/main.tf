variable "module_name" {
  type  = string
}

module "example" {
  source   = "./modules/example"
  for_each = toset(["a", "b"])
  letter   = each.value
}
