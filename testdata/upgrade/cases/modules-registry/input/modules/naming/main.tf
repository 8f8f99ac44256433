module "label" {
  source  = "cloudposse/label/null"
  version = "0.25.0"
}

variable "name" {
  type = string
}
