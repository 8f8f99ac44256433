
module "fromdisk" {
  source    = "./mod"
  namespace = "terraform-iaac"
}
