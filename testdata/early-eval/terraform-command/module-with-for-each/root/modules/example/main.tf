resource "test_instance" "example" {
  ami = "bar"
}

variable "letter" {
  type = string
}
