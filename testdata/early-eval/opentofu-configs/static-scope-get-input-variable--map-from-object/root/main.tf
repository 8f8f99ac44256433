variable "map_from_object" {
	type = map(string)
}

module "mod" {
  source = "./modules/${var.map_from_object["b"]}"
}
