terraform {
  required_providers {
    # Legacy string form: a version constraint only, source implied.
    aws = "~> 3.0"
    dns = {
      source = "hashicorp/dns"
    }
    mycloud = {
      source                = "example.com/acme/mycloud"
      version               = ">= 1.2, < 2.0"
      configuration_aliases = [mycloud.eu]
    }
  }
}

provider "google" {
  version = "~> 4.1"
  project = "x"
}

provider "aws" {
  alias   = "west"
  version = "3.74.0"
}

resource "aws_instance" "web" {
  provider = aws.west
}

# The provider meta-argument picks the local name, not the type prefix.
resource "google_compute_instance" "vm" {
  provider = mycloud.eu
}

data "terraform_remote_state" "network" {
  backend = "local"
}

resource "terraform_data" "marker" {}

resource "null_resource" "x" {}

ephemeral "random_password" "db" {
  length = 16
}

check "health" {
  data "http" "site" {
    url = "https://example.com"
  }
}

import {
  to = tls_private_key.imported
  id = "x"
}

import {
  to       = aws_instance.web
  id       = "i-123"
}

import {
  to = module.child.azurerm_thing.x
  id = "x"
}
