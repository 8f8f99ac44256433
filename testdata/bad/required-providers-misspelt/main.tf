terraform {
  required_providers {
    random = {
      source  = "{{REGISTRY}}/hashicorp/random"
      versoin = "~> 3.2"
    }
  }
}
