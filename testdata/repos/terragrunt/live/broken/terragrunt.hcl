terraform {
  source = "../../modules//vpc"

inputs = {
  name = "broken"
}
