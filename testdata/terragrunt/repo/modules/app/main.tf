resource "random_pet" "name" {}

module "net" {
  source = "../net"
}
