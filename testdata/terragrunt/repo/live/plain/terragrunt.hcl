# No terraform.source: the unit directory holds the configuration.
generate "versions" {
  path      = "versions.tf"
  if_exists = "overwrite_terragrunt"
  contents  = <<EOF
terraform {
  required_providers {
    local = {
      source  = "hashicorp/local"
      version = "2.4.0"
    }
  }
}
EOF
}

generate "disabled" {
  path      = "disabled.tf"
  if_exists = "overwrite"
  disable   = true
  contents  = "provider \"azurerm\" {}"
}

generate "vars" {
  path      = "terraform.tfvars"
  if_exists = "overwrite"
  contents  = "x = 1"
}
