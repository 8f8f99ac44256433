# Shape 3 of the issue: an empty heredoc followed by a parenthesised heredoc using the same
# delimiter. The empty heredoc used to run on to the second one's closing line.

locals {
  c = true
  a = <<EOT
EOT
  x = (local.c ? <<-EOT
    #!/bin/sh
    echo "${local.a}"
    EOT
  : "")
}

resource "null_resource" "script" {
  triggers = { script = local.x }
}
