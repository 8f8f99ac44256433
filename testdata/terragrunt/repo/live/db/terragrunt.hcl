include "root" {
  path = find_in_parent_folders("root.hcl")
}

# The unit's own source wins over root.hcl's; ?ref= means nothing for a local path.
terraform {
  source = "../../modules//db?ref=v1.2.3"
}

# Replaces root.hcl's block of the same name.
generate "versions" {
  path      = "versions.tf"
  if_exists = "overwrite_terragrunt"
  contents  = <<-EOF
    terraform {
      required_providers {
        tls = {
          source  = "hashicorp/tls"
          version = "4.0.5"
        }
      }
    }
  EOF
}
