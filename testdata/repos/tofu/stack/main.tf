# Ignored by OpenTofu: main.tofu replaces this file.
terraform {
  required_providers {
    null = {
      source  = "{{REGISTRY}}/hashicorp/null"
      version = "3.0.0"
    }
  }
}
