terraform {
  required_providers {
    random = {
      source  = "{{REGISTRY}}/hashicorp/random"
      version = ">= 3.5.0"
    }
  }
}
