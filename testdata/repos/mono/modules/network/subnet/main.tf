# No required_providers entry for tls: the provider is implied,
# registry.terraform.io/hashicorp/tls, with no constraints.
resource "tls_private_key" "node" {
  algorithm = "ED25519"
}

resource "aws_subnet" "this" {
  vpc_id     = "vpc-0"
  cidr_block = "10.0.0.0/24"
}
