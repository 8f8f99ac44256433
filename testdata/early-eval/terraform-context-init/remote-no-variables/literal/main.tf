
module "example" {
  source  = "{{MODULES}}/terraform-aws-modules/vpc/aws"
  version = "6.6.0"
}

module "example2" {
  source  = "{{MODULES}}/terraform-iaac/cert-manager/kubernetes"
}
				