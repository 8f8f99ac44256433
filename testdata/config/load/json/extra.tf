resource "local_file" "f" {
  filename = "x"
}
