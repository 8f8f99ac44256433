module "label" {
  source  = "cloudposse/label/null"
  version = "0.25.1"
}

variable "name" {
  type = string
}
