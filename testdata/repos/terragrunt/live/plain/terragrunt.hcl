# No terraform.source: this directory holds the configuration.
generate "versions" {
  path      = "versions.tf"
  if_exists = "overwrite_terragrunt"
  contents  = <<EOF
terraform {
  required_providers {
    local = {
      source  = "{{REGISTRY}}/hashicorp/local"
      version = "~> 2.4"
    }
  }
}
EOF
}
