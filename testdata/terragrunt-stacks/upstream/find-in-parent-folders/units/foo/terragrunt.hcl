terraform {
  source = "."
}

inputs = {
  mock = values.mock
}
