resource "local_file" "f" {
  filename = "f"
  content  = "x"
}
