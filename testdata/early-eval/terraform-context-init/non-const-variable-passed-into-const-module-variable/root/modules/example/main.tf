
variable "name" {
  type = string
  const = true
}
					