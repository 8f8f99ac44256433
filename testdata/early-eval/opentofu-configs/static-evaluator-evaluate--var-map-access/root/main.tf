variable "str_map" {
  type = map(string)
}

locals {
  var_map_access = var.str_map["keyA"]
}

module "mod" {
  source = "./modules/${local.var_map_access}"
}
