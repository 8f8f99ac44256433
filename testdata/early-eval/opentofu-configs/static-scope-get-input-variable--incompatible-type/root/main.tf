variable "bad_default" {
	type = list(string)
}

module "mod" {
  source = "./modules/${join("-", var.bad_default)}"
}
