# Équipe plateforme — versions des fournisseurs. 日本語のコメント 🚀
terraform {
  required_version = ">= 1.5" # ≥ 1.5

  required_providers {
    aws = {
      source  = "hashicorp/aws" # Amazon Web Services™
      version = "6.0.0"         # « pessimiste »
    }
  }
}

locals {
  projet    = "réseau"
  café      = "☕"
  greeting  = "こんにちは, ${local.projet}"
  emoji_tag = "🚀🔥"
}

locals {
  ville = "Zürich" # ü is one column
  pays  = "日本"     # aligned by characters, not bytes or display columns
  tasse = "☕"      # one character
}

module "vpc" {
  source  = "terraform-aws-modules/vpc/aws"
  version = "5.0.0"

  name = "vpc-${local.café}" # nom
}
