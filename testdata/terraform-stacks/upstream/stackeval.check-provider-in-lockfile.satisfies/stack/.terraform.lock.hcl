# This file is maintained automatically by "terraform stacks providers-lock".
# Manual edits may be lost in future updates.

provider "registry.terraform.io/hashicorp/testing" {
  version = "1.2.0"
}
