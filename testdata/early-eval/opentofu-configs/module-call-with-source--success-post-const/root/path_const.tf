
variable "path" {
  type = string
  const = true
  default = "./path"
}