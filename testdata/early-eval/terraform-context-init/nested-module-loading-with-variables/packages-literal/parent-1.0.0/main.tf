
variable "name" {
    type = string
}
module "child" {
  source = "{{MODULES}}/hashicorp/child/aws"
  name = "grand${var.name}"
}
					