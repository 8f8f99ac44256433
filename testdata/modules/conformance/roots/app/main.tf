# Registry module with a constraint (nested local module inside it) and a git module by tag.
module "vpc" {
  source  = "{{MODULES}}/acme/vpc/aws"
  version = "~> 1.0"
}

module "dns" {
  source = "git::http://{{GIT}}/shared.git//dns?ref=v1.4.0"
}
