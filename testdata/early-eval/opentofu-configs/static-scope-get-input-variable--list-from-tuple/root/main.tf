variable "list_from_tuple" {
	type = list(string)
}

module "mod" {
  source = "./modules/${join("-", var.list_from_tuple)}"
}
