locals {
  script = (<<EOT
echo "the closing delimiter must stand alone on its line"
EOT)
}

terraform {
  required_providers {
    null = { source = "{{REGISTRY}}/hashicorp/null", version = "3.2.1" }
  }
}
