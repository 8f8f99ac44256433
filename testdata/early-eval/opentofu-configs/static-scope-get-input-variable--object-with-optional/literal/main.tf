variable "object_with_optional" {
	type = any
}

module "mod" {
  source = "./modules/b default"
}
