# Copied into the working directory by Terragrunt, next to the module's files.
provider "aws" {
  region = "eu-west-1"
}

provider "google" {}
