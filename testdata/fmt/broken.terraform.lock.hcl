# This file is maintained automatically by "terraform init".
# Manual edits may be lost in future updates.

provider "registry.terraform.io/hashicorp/null" {
  version = "2.1"
  hashes = [
    "zh:022eb9cefb72d25cb39aebf17787ae5a1a239544abae7ac11fdc2b5a464c06f8",
  ]
}

provider "hashicorp/random" {
  version = "3.6.0"
}

provider "registry.terraform.io/hashicorp/time" {
  version     = "0.9.1"
  constraints = ">= 0.9"
}
