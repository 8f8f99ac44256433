# tfsum: not in upstream's fixture. The provider this unit's lock file must hold.
terraform {
  required_providers {
    aws = {
      source = "{{REGISTRY}}/hashicorp/aws"
    }
  }
}
