module "b" {
  source = "../cycle-b"
}

resource "null_resource" "a" {}
