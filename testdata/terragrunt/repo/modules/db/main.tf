resource "tls_private_key" "db" {
  algorithm = "ED25519"
}
