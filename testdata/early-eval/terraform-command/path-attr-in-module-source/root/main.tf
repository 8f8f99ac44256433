module "example" {
  source = "${path.module}/modules/example"
}
