
variable "name" {
  type = string
}
