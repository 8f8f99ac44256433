
output "id" {
  value = "example-id"
}
							