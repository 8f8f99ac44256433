module "shared" {
  source = "../../shared"
}

resource "aws_subnet" "this" {}
