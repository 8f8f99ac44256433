terraform {
  required_providers {
    local = {
      source  = "{{REGISTRY}}/hashicorp/local"
      version = "2.4.0"
    }
  }
}
