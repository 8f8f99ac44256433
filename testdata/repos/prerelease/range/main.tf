terraform {
  required_providers {
    widget = {
      source  = "{{REGISTRY}}/acme/widget"
      version = ">= 1.0.0"
    }
  }
}
