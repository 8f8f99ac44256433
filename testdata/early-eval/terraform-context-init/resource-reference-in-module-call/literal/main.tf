
variable "name" {
    type = string
    default = "aws"
}
resource "null_resource" "example" {}

module "example" {
    source  = "./aws"

    name = var.name
    this_should_be_unknown_and_not_cause_error = null_resource.example.id
}
