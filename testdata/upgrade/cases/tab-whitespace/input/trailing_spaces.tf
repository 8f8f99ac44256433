variable "cidr" {   
  type    = string 
  default = "10.0.0.0/16"  
}
