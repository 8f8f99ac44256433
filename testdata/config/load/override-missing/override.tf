resource "aws_instance" "b" {
  provider = aws.x
}
