# An empty heredoc, the requirements, then another heredoc with the same delimiter. Before the
# heredoc fix tfsum parsed this without error but lost the terraform block: the empty
# heredoc ran on to the last EOT, and tfsum locked nothing.

locals {
  banner = <<EOT
EOT
}

terraform {
  required_providers {
    aws = {
      source  = "{{REGISTRY}}/hashicorp/aws"
      version = "~> 5.30.0"
    }
  }
}

locals {
  motd = <<EOT
Welcome
EOT
}
