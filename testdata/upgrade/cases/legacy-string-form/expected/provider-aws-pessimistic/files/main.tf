provider "aws" {
  region  = "us-east-1"
  version = "~> 3.0"
}

resource "null_resource" "noop" {}
