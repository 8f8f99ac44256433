# tfsum: not in upstream's fixture. The provider this unit's lock file must hold.
# main.tf declares a local_file resource: its provider (local name "local") comes from the fake registry.
terraform {
  required_providers {
    local = {
      source = "{{REGISTRY}}/hashicorp/random"
    }
  }
}
