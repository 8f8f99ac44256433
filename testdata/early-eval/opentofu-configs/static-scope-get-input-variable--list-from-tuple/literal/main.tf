variable "list_from_tuple" {
	type = list(string)
}

module "mod" {
  source = "./modules/a-true-a"
}
