
variable "some" {
 type = string
}
variable "name" {
  type    = string
  default = "bad"

}
module "example" {
    source = "./modules/example"

    name = var.name
}
