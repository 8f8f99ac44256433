# No required_providers for these: implied registry.terraform.io/hashicorp/*.
resource "random_string" "name" {
  length = 8
}

data "local_file" "motd" {
  filename = "/etc/motd"
}

# A legacy provider block `version` still constrains the provider.
provider "tls" {
  version = "< 4.0.5"
}

resource "tls_private_key" "k" {
  algorithm = "ED25519"
}
