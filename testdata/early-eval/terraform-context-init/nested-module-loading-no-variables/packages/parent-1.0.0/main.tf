
module "child" {
  source = "{{MODULES}}/hashicorp/child/aws"
}
					