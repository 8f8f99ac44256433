
variable "ver" {
  deprecated = true
  const      = true
  default   = "1.0.0"
}
module "local" {
  source  = "{{MODULES}}/terraform-aws-modules/vpc/aws"
  version = var.ver
}
