variable "child_name" {
  type  = string
}

module "child" {
  source = "../child"
}
