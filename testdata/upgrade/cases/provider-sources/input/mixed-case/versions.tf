terraform {
  required_providers {
    aws = {
      source  = "HashiCorp/AWS"
      version = "~> 5.0"
    }
  }
}
