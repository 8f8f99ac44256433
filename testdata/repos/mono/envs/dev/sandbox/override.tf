# An override replaces the whole entry: with no source, `local` becomes
# registry.terraform.io/hashicorp/local, and versions.tf's pin is gone.
terraform {
  required_providers {
    local = {
      version = "~> 2.4"
    }
  }
}
