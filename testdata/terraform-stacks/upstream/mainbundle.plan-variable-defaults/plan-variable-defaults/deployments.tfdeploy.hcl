deployment "main" {
  inputs = {}
}
