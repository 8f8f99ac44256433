
variable "sourc" {
  deprecated = true
  const      = true
  default    = "./modules/local"
}
module "local" {
  source  = var.sourc
}
