unit "v2-unit1" {
	source = "../unit"
	path   = "unit1"
}

unit "v2-unit2" {
	source = "../unit"
	path   = "unit2"
}

unit "v2-unit3" {
	source = "../unit"
	path   = "unit3"
}

