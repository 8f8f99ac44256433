output "out" {
	value = "placeholder"
}
