inputs = {
  stack_dir = values.stack_dir
}

# tfsum: not in upstream's fixture. The provider depends on values.stack_dir,
# so the lock file shows which directory get_original_terragrunt_dir() gave:
# "random" for the generated child stack directory (".../.terragrunt-stack/unit_dirs"),
# "null" for the directory of the stack file under live/.
locals {
  tfsum_provider = basename(values.stack_dir) == "unit_dirs" ? "random" : "null"
}

# tfsum: not in upstream's fixture.
generate "tfsum_providers" {
  path      = "tfsum_providers.tf"
  if_exists = "overwrite"
  contents  = <<EOF
terraform {
  required_providers {
    ${local.tfsum_provider} = {
      source = "{{REGISTRY}}/hashicorp/${local.tfsum_provider}"
    }
  }
}
EOF
}
