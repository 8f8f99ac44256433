terraform {
  required_providers {
    aws = {
      source  = "example-corp/aws"
      version = "~> 1.4"
    }
  }
}

provider "aws" {
  version = "~> 1.4"
  region  = "us-west-2"
}
