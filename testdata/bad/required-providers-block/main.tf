terraform {
  required_providers {
    random {
      source = "{{REGISTRY}}/hashicorp/random"
    }
  }
}
