
variable "name" {
    type = string
    const = true
}
module "child" {
  source = "{{MODULES}}/hashicorp/${var.name}/aws"
  name = "grand${var.name}"
}
					