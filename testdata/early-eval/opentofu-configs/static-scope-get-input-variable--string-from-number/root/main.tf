variable "string_from_number" {
	type = string
}

module "mod" {
  source = "./modules/${var.string_from_number}"
}
