output "name" {
  description = "Name of the network."
  value       = local.name
}
