# A separate root nested inside another root's directory.
resource "tls_private_key" "ca" {
  algorithm = "RSA"
}
