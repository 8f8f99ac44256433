sensitive_string = "ssshhhhh it's a secret"
