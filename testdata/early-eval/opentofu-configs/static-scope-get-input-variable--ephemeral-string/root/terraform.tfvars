ephemeral_string = "ssshhhhh it's a secret"
