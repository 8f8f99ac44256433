
variable "sourc" {
  const   = true
  default = null
}
module "local" {
  source  = var.sourc
}
