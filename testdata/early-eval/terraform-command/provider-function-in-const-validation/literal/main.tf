terraform {
  required_providers {
    test = {
      source = "{{REGISTRY}}/hashicorp/aws"
    }
  }
}

variable "module_name" {
  type  = string
}

module "example" {
  source = "./modules/example"
}
