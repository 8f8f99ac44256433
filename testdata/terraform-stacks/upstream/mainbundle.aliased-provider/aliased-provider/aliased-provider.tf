
resource "testing_resource" "data" {
  provider = other
}
