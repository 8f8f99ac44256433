# Added for tfsum's corpus: names the provider this module requires so that
# the lock file shows whether this module was installed.
terraform {
  required_providers {
    random = {
      source  = "{{REGISTRY}}/hashicorp/random"
      version = "3.6.0"
    }
  }
}
