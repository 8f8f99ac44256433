terraform {
  backend "s3" {
    bucket = "acme-prod-state"
    key    = "app/terraform.tfstate"
    region = "eu-west-1"
  }

  required_providers {
    aws = {
      source  = "{{REGISTRY}}/hashicorp/aws"
      version = "5.30.0"
    }
  }
}

module "app" {
  source = "../../../modules/app"
}
