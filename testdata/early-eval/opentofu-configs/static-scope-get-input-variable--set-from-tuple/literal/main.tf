variable "set_from_tuple" {
	type = set(string)
}

module "mod" {
  source = "./modules/a-true"
}
