locals {
  modules = get_env("MODULES_DIR", "../../modules")
}

terraform {
  source = "${local.modules}//vpc"
}
