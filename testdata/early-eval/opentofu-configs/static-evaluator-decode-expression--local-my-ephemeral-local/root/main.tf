variable "e" {
  ephemeral = true
  default   = "ephemeral local value"
}

locals {
  my_ephemeral_local = var.e
}

module "mod" {
  source = local.my_ephemeral_local
}
