stack "units" {
  source = find_in_parent_folders("stacks/read-config")
  path   = "unit_dirs"
}
