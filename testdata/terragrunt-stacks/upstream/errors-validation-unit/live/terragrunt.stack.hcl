
unit "v1" {
	source = "${get_repo_root()}/units/v1"
	path = "v1"
}
