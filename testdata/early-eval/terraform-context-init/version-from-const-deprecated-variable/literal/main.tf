
variable "ver" {
  default   = "1.0.0"
}
module "local" {
  source  = "{{MODULES}}/terraform-aws-modules/vpc/aws"
  version = "1.0.0"
}
