# Comments in every place HCL allows them.
# A lone carriage return (an old editor's line end) is part of a comment: it stays in it.

/* A block comment
   before everything. */
terraform { # trailing comment after the brace
  required_providers {
    // Line comment inside.
    tls = {
      source = "{{REGISTRY}}/hashicorp/tls" # after a value
      /* before a key */ version = "4.0.4"
    }
  }
}

locals {
  list = [
    1, # one
    2, // two
    /* three */ 3
  ]
  object = { # opening
    a = 1 # after a
    b = 2 /* after b */
  }
  call = max(
    1, # first
    2  // second
  )
  answer /* before the equals */ = 42
}

resource "tls_private_key" /* between labels */ "key" {
  algorithm = "ED25519" # trailing
}
# A comment at the end of the file, with no newline after it.