provider "aws" {
  version = "~> 5.0"
}
