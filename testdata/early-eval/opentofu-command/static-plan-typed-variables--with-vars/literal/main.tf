variable "state_path" {}

variable "src" {
	type = string
}

terraform {
	backend "local" {
		path = "custom.tfstate"
	}
}

module "mod" {
	source = "./mod"
}

output "out" {
	value = module.mod.out
}
