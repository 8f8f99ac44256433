unit "mother" {
	source = "../units/chicken"
	path   = "mother"
}

unit "father" {
	source = "../units/chicken"
	path   = "father"
}

unit "chick_1" {
	source = "../units/chick"
	path   = "chicks/chick-1"
}

unit "chick_2" {
	source = "../units/chick"
	path   = "chicks/chick-2"
}

