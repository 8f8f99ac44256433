# merge conflict left behind
<<<<<<< HEAD
provider "registry.terraform.io/hashicorp/aws" {
  version = "5.31.0"
}
=======
