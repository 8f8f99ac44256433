terraform {
  required_providers {
    amazon = {
      source  = "hashicorp/aws"
      version = "6.0.0"
    }
  }
}

provider "amazon" {
  region = "ap-northeast-1"
}
