set_from_tuple = ["a", true, "a"]
