terraform {
  required_providers {
    local = {
      source  = "{{REGISTRY}}/hashicorp/null"
      version = "3.1.0"
    }
  }
}

resource "local_file" "marker" {
  content  = "gen"
  filename = "${path.module}/marker.txt"
}
