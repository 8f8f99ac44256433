
variable "path" {
  type = string
  default = "./path"
}