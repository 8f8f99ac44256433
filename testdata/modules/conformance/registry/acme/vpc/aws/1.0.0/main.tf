terraform {
  required_providers {
    null = {
      source  = "{{REGISTRY}}/hashicorp/null"
      version = ">= 3.1.0"
    }
  }
}
