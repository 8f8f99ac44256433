
resource "null_resource" "example" {}

module "example" {
    source  = "terraform-iaac/${null_resource.example.id}/kubernetes"
}
