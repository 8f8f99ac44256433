# This file is maintained automatically by "terraform init".
# Manual edits may be lost in future updates.

provider "example.com/acme/widget" {
  version = "0.3.0-beta.1"
  hashes = [
    "h1:abc=",
    "test:zzz",
  ]
}

provider "registry.terraform.io/hashicorp/null" {
  version     = "2.1.0"
  constraints = "2.1.0"
  hashes = [
    "h1:J/XPKw4nOAsE0iHHqkR0oIBfchtt3pokNj4gFlHqVvk=",
    "h1:uugNjv4FEabvXfifTzRCqSerdraltZR0UwXzH8QYPUQ=",
    "zh:022eb9cefb72d25cb39aebf17787ae5a1a239544abae7ac11fdc2b5a464c06f8",
  ]
}

provider "registry.terraform.io/hashicorp/template" {
  version     = "2.1.1"
  constraints = "2.1.1"
  hashes = [
    "h1:fBNBluCX4pWlYEw5ZyCTHB00E+3BDSe7GjRzF1ojcvU=",
    "h1:x2/zuJFN/oOUpE1C1nSk4n86AA2zASOyy2BUdFYcpXw=",
    "zh:05fddf3cacb607f623c2b221c3e9ab724079deca0b703b2738e9d55c10e31717",
    "zh:f795833225207d2eee022b91d26bee18d5e518e70912dd7a1d2a0eff2cbe4f1d",
  ]
}

provider "registry.terraform.io/integrations/github" {
  version = "6.0.0"
}
