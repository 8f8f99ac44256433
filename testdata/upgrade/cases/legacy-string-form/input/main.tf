provider "aws" {
  region  = "us-east-1"
  version = "~> 2.70"
}

resource "null_resource" "noop" {}
