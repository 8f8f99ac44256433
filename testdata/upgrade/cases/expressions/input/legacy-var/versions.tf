terraform {
  required_providers {
    aws = var.aws_version
  }
}
