provider "aws" {
  version = "~> 5.0"
  region  = "eu-west-1"
}
