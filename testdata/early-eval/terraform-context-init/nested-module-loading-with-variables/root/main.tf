
module "parent" {
  source = "{{MODULES}}/hashicorp/parent/aws"
  name = "child"
}
