bad_default = "not a list"
