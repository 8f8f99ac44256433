variable "set_from_tuple" {
	type = set(string)
}

module "mod" {
  source = "./modules/${join("-", var.set_from_tuple)}"
}
