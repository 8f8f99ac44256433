# Added for tfsum's corpus: names the provider this module requires so that
# the lock file shows whether this module was installed.
terraform {
  required_providers {
    null = {
      source  = "{{REGISTRY}}/hashicorp/null"
      version = "3.2.1"
    }
  }
}
