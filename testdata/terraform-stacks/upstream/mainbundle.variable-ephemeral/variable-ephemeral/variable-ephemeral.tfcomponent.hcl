variable "eph" {
  type      = string
  default   = null
  ephemeral = true
}

variable "noneph" {
  type    = string
  default = null
}
