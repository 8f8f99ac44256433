variable "input" {
  type = string
}

output "value" {
  value = var.input
}
