# Trailing commas and mixed separators where Terraform allows them.

locals {
  list  = [1, 2, 3, ]
  call  = max(1, 2, 3, )
  spread = max([1, 2]...)
  inline = { a = 1, b = 2, }
  mixed = {
    a = 1,
    b = 2
    c = 3,
  }
  colon = { "a" : 1, b : 2 }
  nested = [
    {
      name = "x",
    },
    {
      name = "y"
    },
  ]
}

terraform {
  required_providers {
    null = { source = "{{REGISTRY}}/hashicorp/null", version = "3.2.1", }
  }
}
