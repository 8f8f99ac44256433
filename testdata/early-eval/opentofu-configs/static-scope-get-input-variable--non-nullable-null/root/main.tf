variable "not_nullable" {
	type     = string
	nullable = false
}

module "mod" {
  source = "./modules/${var.not_nullable}"
}
