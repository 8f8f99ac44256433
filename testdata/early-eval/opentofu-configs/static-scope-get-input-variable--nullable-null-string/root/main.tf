variable "nullable_null_string" {
	type    = string
	default = "..." # Ignored because nullable and set to null in the tests below
}

module "mod" {
  source = var.nullable_null_string
}
