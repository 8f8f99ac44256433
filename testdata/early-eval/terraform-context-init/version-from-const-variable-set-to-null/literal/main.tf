
variable "ver" {
  type    = string
  default = null
}
module "local" {
  source  = "./modules/local"
}
