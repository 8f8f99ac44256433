component "foo" {
  source = "../empty-module"
}
