# Identifiers are Unicode (UAX #31) in HCL: names with accents and other scripts.

locals {
  café    = "crème"
  名前    = "値"
  résumé  = "${local.café}-${local.名前}"
  größe   = { höhe = 1, breite = 2 }
}

variable "région" {
  type    = string
  default = "eu-west-3"
}

terraform {
  required_providers {
    random = {
      source  = "{{REGISTRY}}/hashicorp/random"
      version = "3.5.1"
    }
  }
}

resource "random_pet" "étiquette" {
  prefix = "${local.résumé}-${var.région}-${local.größe.höhe}"
}
