resource "testing_resource" "resource" {
  id = "resource"
}
