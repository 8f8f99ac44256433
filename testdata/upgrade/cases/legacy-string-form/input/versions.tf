terraform {
  required_version = ">= 0.12.26"

  required_providers {
    aws    = "~> 2.70"
    google = ">= 3.0, < 4.0"
    null   = "2.1.2"
  }
}
