terraform {
  required_providers {
    weird = {
      source = "a/b/c/d"
    }
  }
}
