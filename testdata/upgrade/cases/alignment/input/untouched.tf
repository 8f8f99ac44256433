# No constraint in this file: tfupdate must leave it alone even though it is not formatted.
variable   "cidr"   {
  type=string
  default =   "10.0.0.0/16"
}
