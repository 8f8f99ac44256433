terraform {
  source = "../../modules/vpc"
}
