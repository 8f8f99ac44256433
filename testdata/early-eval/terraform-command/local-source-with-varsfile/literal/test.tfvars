module_name = "example"
