
variable "path" {
  type = string
  const = false
  default = "./path"
}