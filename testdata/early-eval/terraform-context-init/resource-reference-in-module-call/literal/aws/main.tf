
variable "name" {
    type = string
}

variable "this_should_be_unknown_and_not_cause_error" {
    type = string
}

module "example" {
    source = "{{MODULES}}/terraform-iaac/aws/kubernetes"
}


output "foo" {
    value = var.this_should_be_unknown_and_not_cause_error
}
			