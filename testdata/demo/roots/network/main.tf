# A root module that uses both demo providers.
terraform {
  required_providers {
    null = {
      source  = "hashicorp/null"
      version = "~> 3.2"
    }
    random = {
      source = "hashicorp/random"
    }
  }
}

resource "random_pet" "name" {}

resource "null_resource" "hello" {
  triggers = {
    name = random_pet.name.id
  }
}
