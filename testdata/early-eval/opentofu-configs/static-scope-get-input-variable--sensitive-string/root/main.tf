variable "sensitive_string" {
	type      = string
	sensitive = true
}

module "mod" {
  source = "./modules/${var.sensitive_string}"
}
