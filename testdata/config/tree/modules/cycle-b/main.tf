module "a" {
  source = "./../cycle-a"
}

data "external" "b" {
  program = ["true"]
}
