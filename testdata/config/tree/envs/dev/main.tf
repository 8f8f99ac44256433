module "network" {
  source = "../../modules/network"
}

module "loop" {
  source = "../../modules/cycle-a"
}
