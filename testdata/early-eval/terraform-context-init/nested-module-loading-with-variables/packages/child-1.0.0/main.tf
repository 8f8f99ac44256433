
variable "name" {
    type = string
    const = true
}
module "grandchild" {
  source = "{{MODULES}}/hashicorp/${var.name}/aws"
}
					