// Default region comes from the environment.
provider "aws" {
  # version = "~> 4.0"
  region = "eu-west-1" # Ireland
}

provider "aws" {
  alias   = "us"
  region  = "us-east-1"
  version = "6.0.0" # deprecated, still here
}
