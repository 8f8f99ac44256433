output "test" {
  value = var.test
}

variable "test" {
  type = string
}

