
inputs = {
  project = values.project
  env = values.env
  data = values.data
}

# tfsum: not in upstream's fixture. main.tf declares a local_file resource; its
# provider (local name "local") comes from the fake registry, and which one
# depends on values.env, which the parent stack passes to the nested stack.
generate "tfsum_providers" {
  path      = "tfsum_providers.tf"
  if_exists = "overwrite"
  contents  = <<EOF
terraform {
  required_providers {
    local = {
      source = "{{REGISTRY}}/hashicorp/${values.env == "prod" ? "random" : "null"}"
    }
  }
}
EOF
}
