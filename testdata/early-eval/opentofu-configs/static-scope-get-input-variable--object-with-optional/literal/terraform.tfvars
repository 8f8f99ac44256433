object_with_optional = {
  c = "c value"
  d = "d value"
}
