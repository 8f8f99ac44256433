# A backend makes this module a plain root too, besides being live/relative's source:
# it gets a lock file of its own, and the unit still gets its own (issue 8, item 3).
terraform {
  backend "local" {}
}
