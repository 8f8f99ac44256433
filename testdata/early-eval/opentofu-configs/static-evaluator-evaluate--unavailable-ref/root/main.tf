locals {
  unavailable_ref = foo.bar.attribute
}

resource "foo" "bar" {}

module "mod" {
  source = "./modules/${local.unavailable_ref}"
}
