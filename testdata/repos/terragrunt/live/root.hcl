# Included by most units; evaluated for each: path_relative_to_include() is the unit's
# path below live/ ("app", "db", ...).
locals {
  modules = "${get_repo_root()}/modules"
}

terraform {
  source = "${local.modules}//${path_relative_to_include()}"
}

remote_state {
  backend = "local"
  config = {
    path = "${get_repo_root()}/state/${path_relative_to_include()}.tfstate"
  }
}

generate "versions" {
  path      = "versions.tf"
  if_exists = "overwrite_terragrunt"
  contents  = <<EOF
terraform {
  required_providers {
    random = {
      source  = "{{REGISTRY}}/hashicorp/random"
      version = "~> 3.5"
    }
  }
}
EOF
}
