
variable "sourc" {
  default    = "./modules/local"
}
module "local" {
  source  = "./modules/local"
}
