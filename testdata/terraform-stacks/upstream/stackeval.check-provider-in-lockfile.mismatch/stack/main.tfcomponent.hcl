required_providers {
  testing = {
    source  = "hashicorp/testing"
    version = ">= 2.0.0"
  }
}

provider "testing" "default" {}
