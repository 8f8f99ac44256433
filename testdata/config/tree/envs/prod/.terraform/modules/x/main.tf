resource "ignored_thing" "x" {}
