
variable "sourc" {
  const     = true
  sensitive = true
  default   = "./modules/local"
}
module "local" {
  source  = var.sourc
}
