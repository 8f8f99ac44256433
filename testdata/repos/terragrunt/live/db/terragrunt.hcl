include "root" {
  path = find_in_parent_folders("root.hcl")
}

# Wins over root.hcl's source; ?ref= means nothing for a local path.
terraform {
  source = "../../modules//db?ref=v1.2.3"
}

# Same label as root.hcl's block: replaces it.
generate "versions" {
  path      = "versions.tf"
  if_exists = "overwrite_terragrunt"
  contents  = <<EOF
terraform {
  required_providers {
    tls = {
      source  = "{{REGISTRY}}/hashicorp/tls"
      version = "< 4.0.5"
    }
  }
}
EOF
}
