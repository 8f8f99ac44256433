terraform {
  backend "local" {
    path = "terraform.tfstate"
  }
}
