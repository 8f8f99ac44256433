terraform {
  source = "git::https://example.com/acme/modules.git//vpc?ref=v1.0.0"
}
