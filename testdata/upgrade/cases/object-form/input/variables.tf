variable "region" {
  type        = string
  description = "AWS region to deploy into."
  default     = "eu-west-1"
}
