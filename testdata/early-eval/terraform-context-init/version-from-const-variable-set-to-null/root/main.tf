
variable "ver" {
  type    = string
  const   = true
  default = null
}
module "local" {
  source  = "./modules/local"
  version = var.ver
}
