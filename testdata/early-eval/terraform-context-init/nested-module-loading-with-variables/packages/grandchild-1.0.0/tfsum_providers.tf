# Added for tfsum's corpus: names the provider this module requires so that
# the lock file shows whether this module was installed.
terraform {
  required_providers {
    aws = {
      source  = "{{REGISTRY}}/hashicorp/aws"
      version = "5.31.0"
    }
  }
}
