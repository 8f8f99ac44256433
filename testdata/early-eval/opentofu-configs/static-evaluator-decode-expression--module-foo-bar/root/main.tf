
module "mod" {
  source = module.foo.bar
}
