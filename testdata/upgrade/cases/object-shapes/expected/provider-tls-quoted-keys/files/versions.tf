terraform {
  required_providers {
    aws = { source = "hashicorp/aws", version = "~> 5.0" }
    google = {
      version = "~> 5.10"
      source  = "hashicorp/google"
    }
    tls = {
      "source"  = "hashicorp/tls"
      "version" = "4.0.5"
    }
    cloudflare = {
      source  = "cloudflare/cloudflare"
      version = "~> 4.0"

      configuration_aliases = [
        cloudflare.zone,
        cloudflare.account,
      ]
    }
    null = {
      source  = "hashicorp/null"
      version = "3.2.2",
    }
  }
}
