# Nothing declared here: null_resource implies registry.terraform.io/hashicorp/null.
resource "null_resource" "b" {}
