locals {
  name   = "network"
  region = "eu-west-1"
}
