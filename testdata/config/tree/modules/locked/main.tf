# Called by envs/prod, but it has its own lock file, so it is also a root.
terraform {
  required_providers {
    time = {
      source = "hashicorp/time"
    }
  }
}
