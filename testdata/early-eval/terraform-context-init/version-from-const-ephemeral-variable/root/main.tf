
variable "ver" {
  const     = true
  ephemeral = true
  default   = "1.0.0"
}
module "local" {
  source  = "./modules/local"
  version = var.ver
}
