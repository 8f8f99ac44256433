output "name" {
  value = aws_dynamodb_table.table.name
}

output "arn" {
  value = aws_dynamodb_table.table.arn
}
