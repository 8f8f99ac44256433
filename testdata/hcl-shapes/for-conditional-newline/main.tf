# Shape 2 of the issue: a `for` expression whose value is a conditional split over lines.
# Terraform ignores newlines anywhere inside a `for` expression.

variable "databases" {
  type    = map(object({ engine = string }))
  default = {}
}

locals {
  is_mysql = true

  parameters = { for k, v in var.databases : k =>
    local.is_mysql
    ? { family = "mysql8.0", port = 3306 }
    : { family = "postgres15", port = 5432 }
  }

  ports = {
    for k, v in
    local.parameters : k
    => v.port
    if v.port
    != 0
  }

  names = [
    for k, v in local.parameters :
    upper(k)
    if v.family != ""
  ]
}

terraform {
  required_providers {
    random = {
      source  = "{{REGISTRY}}/hashicorp/random"
      version = ">= 3.5.0"
    }
  }
}

resource "random_id" "suffix" {
  byte_length = length(local.ports) + 2
}
