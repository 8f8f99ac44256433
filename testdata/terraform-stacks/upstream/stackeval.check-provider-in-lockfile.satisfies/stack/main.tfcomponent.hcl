required_providers {
  testing = {
    source  = "hashicorp/testing"
    version = "~> 1.2"
  }
}

provider "testing" "default" {}
