terraform {
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = "~> 2.0"
    }
  }
}

provider "aws" {
  version = "~> 2.0"
  region  = "us-east-1"
}

provider "aws" {
  alias   = "west"
  version = "~> 2.0"
  region  = "us-west-2"
}

provider "aws" {
  alias  = "central"
  region = "eu-central-1"
}

provider "google" {
  version = "~> 3.5"
  project = "example-project"
}
