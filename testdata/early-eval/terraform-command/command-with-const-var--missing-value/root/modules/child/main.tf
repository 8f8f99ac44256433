resource "test_instance" "test" {
}
