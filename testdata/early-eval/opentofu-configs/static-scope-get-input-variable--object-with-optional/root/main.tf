variable "object_with_optional" {
	type = object({
		a = optional(string)
		b = optional(string, "b default")
		c = string
	})
}

module "mod" {
  source = "./modules/${var.object_with_optional.b}"
}
