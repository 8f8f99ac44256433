# This file is maintained automatically by "terraform init".
# Manual edits may be lost in future updates.

provider "{{REGISTRY}}/hashicorp/null" {
  version     = "3.2.1"
  constraints = "3.2.1"
  hashes = [
    "h1:not-closed",
