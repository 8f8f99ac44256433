# The parent every unit under live/ includes. Evaluated for each unit:
# path_relative_to_include() is the unit's path below live/ ("app", "db", ...).
locals {
  modules = "${get_repo_root()}/modules"
  # Not needed for the source; must not fail units although tfsum cannot run it.
  account = get_env("AWS_ACCOUNT")
}

terraform {
  source = "${local.modules}//${path_relative_to_include()}"
}

remote_state {
  backend = "s3"
  config = {
    key = "${path_relative_to_include()}/terraform.tfstate"
  }
}

generate "versions" {
  path      = "versions.tf"
  if_exists = "overwrite_terragrunt"
  contents  = <<EOF
terraform {
  required_providers {
    random = {
      source  = "hashicorp/random"
      version = "~> 3.5"
    }
  }
}
EOF
}
