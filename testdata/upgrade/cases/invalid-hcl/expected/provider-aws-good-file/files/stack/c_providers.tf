provider "aws" {
  version = "6.0.0"
}
