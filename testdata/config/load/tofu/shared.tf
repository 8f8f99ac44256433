resource "random_id" "both" {}
