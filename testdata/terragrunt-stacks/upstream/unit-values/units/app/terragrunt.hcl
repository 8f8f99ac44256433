
locals {
  data = "payload: ${values.deployment}-${values.project}"

  # tfsum: not in upstream's fixture. The provider depends on values.deployment.
  tfsum_provider = values.deployment == "app1" ? "null" : "random"
}

inputs = {
  deployment = values.deployment
  project = values.project
  data = local.data
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
