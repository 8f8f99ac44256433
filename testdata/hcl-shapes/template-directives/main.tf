# Template directives whose expressions span lines: newlines are insignificant inside
# %{ } as inside ${ }.

variable "users" {
  type    = list(string)
  default = []
}

variable "admin" {
  type    = string
  default = ""
}

locals {
  cloud_init = <<-EOT
    #cloud-config
    users:
    %{ for user in
         var.users ~}
      - name: ${user}
    %{ endfor ~}
    %{ if var.admin != "" &&
          length(var.users) > 0 ~}
      - name: ${var.admin}
        sudo: ALL=(ALL) NOPASSWD:ALL
    %{ else ~}
      # no admin
    %{ endif ~}
    EOT
  greeting = "%{ if length(var.users)
    > 1 }Hello all%{ else }Hello%{ endif }"
  interpolated = "${
    join(", ", var.users)
  }"
}

terraform {
  required_providers {
    local = {
      source  = "{{REGISTRY}}/hashicorp/local"
      version = "~> 2.4"
    }
  }
}

resource "local_file" "cloud_init" {
  content  = local.cloud_init
  filename = "cloud-init.yaml"
}
