variable "str_map_def" {
  type = map(string)
  default = {
    keyA = "A"
  }
}

locals {
  var_map_def_access = var.str_map_def["keyA"]
}

module "mod" {
  source = "./modules/A"
}
