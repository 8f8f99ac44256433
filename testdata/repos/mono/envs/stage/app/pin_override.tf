# Replaces main.tf's whole `null` entry: 3.1.1 instead of "~> 3.2".
terraform {
  required_providers {
    null = {
      source  = "{{REGISTRY}}/hashicorp/null"
      version = "3.1.1"
    }
  }
}
