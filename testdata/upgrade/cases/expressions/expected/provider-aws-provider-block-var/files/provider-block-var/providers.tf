provider "aws" {
  region  = "us-east-1"
  version = "6.0.0"
}
