locals {
  my_sensitive_local = sensitive("sensitive local value")
}

module "mod" {
  source = local.my_sensitive_local
}
