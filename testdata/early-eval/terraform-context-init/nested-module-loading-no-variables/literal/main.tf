
module "parent" {
  source = "{{MODULES}}/hashicorp/parent/aws"
}
