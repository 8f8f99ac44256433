variable "ephemeral_string" {
	type      = string
	ephemeral = true
}

module "mod" {
  source = "./modules/${var.ephemeral_string}"
}
