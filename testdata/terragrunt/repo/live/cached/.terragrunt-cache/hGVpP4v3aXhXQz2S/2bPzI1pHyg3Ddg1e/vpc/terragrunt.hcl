terraform {
  source = "git::https://github.com/acme/infrastructure-modules.git//vpc?ref=v1.0.0"
}
