locals {
	version = "v0.1.0"
}

unit "app1" {
	source = "git::{{GIT}}/terragrunt.git//test/fixtures/stacks/basic/units/chick?ref=${local.version}"
	path   = "app1"
}

unit "app2" {
	source = "git::{{GIT}}/terragrunt.git//test/fixtures/stacks/basic/units/chick?ref=${local.version}"
	path   = "app2"
}

