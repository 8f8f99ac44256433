# tls's source and version come from the unit's generated versions.tf.
resource "tls_private_key" "db" {
  algorithm = "ED25519"
}
