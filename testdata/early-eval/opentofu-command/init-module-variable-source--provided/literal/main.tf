variable "src" {
	type = string
}

module "mod" {
	source = "./mod"
}
