terraform {
  required_providers {
    aws = {
      source  = "example-corp/aws"
      version = "6.0.0"
    }
  }
}

provider "aws" {
  version = "6.0.0"
  region  = "us-west-2"
}
