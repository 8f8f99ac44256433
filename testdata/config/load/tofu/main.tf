resource "aws_instance" "read_by_terraform_only" {}
