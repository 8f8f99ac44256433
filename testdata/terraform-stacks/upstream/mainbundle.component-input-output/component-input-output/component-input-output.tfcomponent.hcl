variable "value" {
  type = string
}

output "value" {
  type = string
  value = var.value
}
