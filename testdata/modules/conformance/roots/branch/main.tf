# A git module by branch (main has moved past the tag) and a local module.
module "zone" {
  source = "git::http://{{GIT}}/shared.git//zone?ref=main"
}

module "local" {
  source = "./local"
}
