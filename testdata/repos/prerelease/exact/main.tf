terraform {
  required_providers {
    widget = {
      source  = "{{REGISTRY}}/acme/widget"
      version = "2.0.0-beta.2"
    }
  }
}
