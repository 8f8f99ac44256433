# The source of aws is declared in versions.tf.json only.
terraform {
  required_providers {
    aws = {
      version = "6.0.0"
    }
  }
}
