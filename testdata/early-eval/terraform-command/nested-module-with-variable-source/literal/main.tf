variable "child_name" {
  type  = string
}

module "parent" {
  source     = "./modules/parent"
  child_name = var.child_name
}
