
module "test" {
  source  = "../boop"
  version = "1.0.0" # Makes Terraform assume "source" is a module address
}
