
variable "name" {
    type = string
}
module "grandchild" {
  source = "{{MODULES}}/hashicorp/grandchild/aws"
}
					