terraform {
  source = "."
}

inputs = {
  test = "value"
}

