resource "test_instance" "example" {
  ami = "bar"
}

variable "number" {
  type = number
}
