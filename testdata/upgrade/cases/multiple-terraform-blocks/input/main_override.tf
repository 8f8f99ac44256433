terraform {
  required_providers {
    aws = {
      version = "5.40.0"
    }
  }
}
