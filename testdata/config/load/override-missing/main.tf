resource "aws_instance" "a" {}
