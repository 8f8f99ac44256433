# A second root module, with a backend, using one provider.
terraform {
  backend "local" {}

  required_providers {
    random = {
      source  = "hashicorp/random"
      version = ">= 3.5.0"
    }
  }
}

resource "random_id" "suffix" {
  byte_length = 4
}
