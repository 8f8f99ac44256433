terraform {
  required_providers {
    aws = {
      source  = "HashiCorp/AWS"
      version = "6.0.0"
    }
  }
}
