# A comment	with a tab, and a heredoc indented with tabs.
locals {
  script = <<EOT
	echo hello
EOT
  note   = "tab	inside a string"
}
