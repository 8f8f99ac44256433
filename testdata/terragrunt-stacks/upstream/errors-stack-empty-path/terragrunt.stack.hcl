stack "prod" {
	source = "stacks/prod"
	path = ""
}
