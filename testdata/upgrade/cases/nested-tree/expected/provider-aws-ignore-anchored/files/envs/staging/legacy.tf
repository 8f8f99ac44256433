provider "aws" {
  version = "6.0.0"
  region  = "eu-west-1"
}
