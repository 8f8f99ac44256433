variable "in" {
  type  = string
}
