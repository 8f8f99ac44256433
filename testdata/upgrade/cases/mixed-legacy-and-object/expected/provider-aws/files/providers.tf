# Left over from the 0.12 layout; nobody removed it.
terraform {
  required_providers {
    aws = "6.0.0"
  }
}

provider "aws" {
  region = "eu-central-1"
}
