
module "mod" {
  source = count
}
