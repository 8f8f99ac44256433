
variable "sourc" {
  const     = true
  ephemeral = true
  default   = "./modules/local"
}
module "local" {
  source  = var.sourc
}
