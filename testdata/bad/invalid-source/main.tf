terraform {
  required_providers {
    null = {
      source  = "{{REGISTRY}}/hashi corp/null"
      version = "3.2.1"
    }
  }
}
