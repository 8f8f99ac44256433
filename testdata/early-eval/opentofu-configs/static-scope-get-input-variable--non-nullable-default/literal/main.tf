variable "non_nullable_default" {
	type     = string
	default  = "default value"
}

module "mod" {
  source = "./modules/default value"
}
