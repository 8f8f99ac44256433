
module "mod" {
  source = "./mod"
  name   = "cert-manager"
}
