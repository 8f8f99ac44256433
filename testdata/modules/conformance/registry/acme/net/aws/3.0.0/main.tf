# A registry module calling a registry module and a git module.
module "vpc" {
  source  = "{{MODULES}}/acme/vpc/aws"
  version = "~> 1.1"
}

module "dns" {
  source = "git::http://{{GIT}}/shared.git//dns?ref=v1.4.0"
}
