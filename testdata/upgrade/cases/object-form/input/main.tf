provider "aws" {
  region = var.region

  default_tags {
    tags = {
      Team    = "platform"
      Managed = "terraform"
    }
  }
}

provider "github" {
  owner = "example-org"
}

resource "random_pet" "bucket" {
  length = 2
}

resource "aws_s3_bucket" "logs" {
  bucket = "logs-${random_pet.bucket.id}"
}

resource "github_repository" "infra" {
  name       = "infra"
  visibility = "private"
}
