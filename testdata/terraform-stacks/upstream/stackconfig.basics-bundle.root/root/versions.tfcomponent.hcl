language = TFStack2023

required_providers {
  null = {
    source  = "hashicorp/null"
    version = "3.2.1"
  }
}
