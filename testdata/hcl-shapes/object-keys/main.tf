# Object keys as Terraform allows them: identifiers, quoted strings, templates,
# parenthesised expressions, keywords, and the colon form.

variable "prefix" {
  type    = string
  default = "x"
}

locals {
  name = "app"
  tags = {
    Name                          = local.name
    "kubernetes.io/role/elb"      = "1"
    "${var.prefix}-owner"         = "team"
    (local.name)                  = "parenthesised"
    (format("%s-id", local.name)) = "computed"
    format                        = "an identifier that starts like for"
    null                          = "keyword as key"
    true                          = "keyword as key"
  }
  colon = { a : 1, "b" : 2, (local.name) : 3 }
}

resource "aws_vpc" "main" {
  tags = local.tags
}

terraform {
  required_providers {
    aws = {
      source  = "{{REGISTRY}}/hashicorp/aws"
      version = ">= 5.0.0, != 5.32.0"
    }
  }
}
