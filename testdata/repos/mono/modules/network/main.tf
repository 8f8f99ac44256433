terraform {
  required_providers {
    # Declared only here, two levels below the roots.
    random = {
      source  = "{{REGISTRY}}/hashicorp/random"
      version = ">= 3.0, < 4.0"
    }
  }
}

module "subnet" {
  source = "./subnet"
}

resource "random_id" "suffix" {
  byte_length = 4
}
