stack "test" {
	source = "${get_repo_root()}/stacks/test"
	path   = "test"
}
