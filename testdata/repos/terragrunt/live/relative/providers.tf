# Copied by Terragrunt next to the module's files.
provider "aws" {
  region = "eu-west-1"
}

resource "local_file" "note" {
  filename = "note"
  content  = "relative"
}
