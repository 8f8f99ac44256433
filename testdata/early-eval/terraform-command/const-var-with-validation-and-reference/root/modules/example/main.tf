variable "in" {
  type  = string
  const = true
}
