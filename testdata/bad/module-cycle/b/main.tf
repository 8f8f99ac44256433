module "a" {
  source = "../a"
}
