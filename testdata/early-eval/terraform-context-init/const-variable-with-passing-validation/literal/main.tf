
variable "name" {
  type  = string

}
module "example" {
    source = "./modules/example"
}
