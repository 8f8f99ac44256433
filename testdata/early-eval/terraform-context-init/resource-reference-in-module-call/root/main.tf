
variable "name" {
    type = string
    default = "aws"
    const = true
}
resource "null_resource" "example" {}

module "example" {
    source  = "./${var.name}"

    name = var.name
    this_should_be_unknown_and_not_cause_error = null_resource.example.id
}
