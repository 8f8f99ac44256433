include "root" {
  path = find_in_parent_folders("root.hcl")
}

include "common" {
  path   = "${get_repo_root()}/live/_common/vpc.hcl"
  expose = true
}

terraform {
  source = "${include.common.locals.base_source}//vpc"
}

# modules/vpc declares its own required_providers; a second block would be an error.
generate "versions" {
  path      = "versions.tf"
  if_exists = "overwrite_terragrunt"
  contents  = ""
  disable   = true
}
