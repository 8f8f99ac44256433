terraform {
  required_version = ">= 1.5.0, < 2.0.0"
}
