map_from_object = {
  a = "a value"
  b = false
}
