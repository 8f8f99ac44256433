
module "example" {
    source = "./module/example"
}

module "example2" {
    source  = "terraform-iaac/${module.example.id}/kubernetes"
}
    