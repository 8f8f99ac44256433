terraform {
  required_providers {
    null = {
      source  = "{{REGISTRY}}/hashicorp/null"
      version = ">= 3.0.0"
    }
  }
}
