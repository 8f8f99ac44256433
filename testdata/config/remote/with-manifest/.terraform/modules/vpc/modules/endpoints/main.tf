resource "random_pet" "name" {}
