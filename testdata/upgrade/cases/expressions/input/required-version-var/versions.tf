terraform {
  required_version = var.terraform_version
}
