output "name" {
  value = "example"
}
