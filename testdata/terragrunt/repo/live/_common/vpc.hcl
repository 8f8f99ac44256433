locals {
  base_source = "${get_repo_root()}/modules"
  # Included, get_terragrunt_dir() is the unit's directory; read with
  # read_terragrunt_config(), it is this file's.
  unit_name = basename(get_terragrunt_dir())
}
