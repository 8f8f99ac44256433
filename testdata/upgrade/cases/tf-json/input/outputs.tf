output "region" {
  value = "us-east-1"
}
