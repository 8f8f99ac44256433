terraform {
  required_providers {
    aws = {
      source = "hashicorp/aws"

  }
}

resource "aws_instance" "x" {
  ami = = "y"
}
