
unit "app1" {
	source = "../units/app1"
	path   = "../project1/app1"
}
