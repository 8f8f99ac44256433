variable "non_nullable_default" {
	type     = string
	default  = "default value"
	nullable = false
}

module "mod" {
  source = "./modules/${var.non_nullable_default}"
}
