terraform {
  required_providers {
    amazon = {
      source  = "hashicorp/aws"
      version = "~> 5.0"
    }
  }
}

provider "amazon" {
  region = "ap-northeast-1"
}
