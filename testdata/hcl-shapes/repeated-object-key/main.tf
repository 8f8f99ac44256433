# Shape 1 of the issue: an object constructor that repeats a key. Terraform evaluates the
# items in order and keeps the later value; hcl-edit 0.9.8+ rejected the whole file.

variable "subnets" {
  description = "Copied between modules, one attribute ended up twice."
  type        = list(object({ name = string, ip_cidr_range = string, name = string }))
  default     = []
}

locals {
  engine = {
    options = { max_connections = 100 }
    family  = "mysql8.0"
    options = { max_connections = 200 }
  }
}

terraform {
  required_providers {
    # The later version wins in Terraform; tfsum must read it the same way, not the first.
    null = {
      source  = "{{REGISTRY}}/hashicorp/null"
      version = "~> 3.0"
      version = "3.1.1"
    }
  }
}

resource "null_resource" "db" {
  triggers = local.engine.options
}
