# random's source comes from the generated versions.tf.
resource "random_pet" "name" {}

module "net" {
  source = "../net"
}
