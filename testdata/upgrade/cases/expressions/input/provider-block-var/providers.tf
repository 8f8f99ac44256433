provider "aws" {
  region  = "us-east-1"
  version = var.aws_version
}
