# Heredoc closing lines as HCL's scanner finds them: a line holding only the delimiter and
# whitespace closes the heredoc; anything else on the line makes it content.

locals {
  script = <<EOT
EOT # this line is content, not the end
EOTX is content too
${"EOT"}
  EOT  
  indented = <<-EOF
    first
      second
    EOF
  empty_indented = <<-EOF
  EOF
  in_list = [<<EOT
one
EOT
  , "two"]
  in_call = join("\n", [<<-EOT
    a
    EOT
  ])
}

resource "null_resource" "heredocs" {
  triggers = {
    script   = local.script
    indented = local.indented
  }
}
