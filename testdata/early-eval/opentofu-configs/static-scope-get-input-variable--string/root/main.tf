variable "string" {
	type = string
}

module "mod" {
  source = "./modules/${var.string}"
}
