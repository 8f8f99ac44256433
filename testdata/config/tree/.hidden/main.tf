resource "hidden_thing" "x" {}
