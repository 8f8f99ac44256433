resource "test_instance" "example" {
  ami = "bar"
}
