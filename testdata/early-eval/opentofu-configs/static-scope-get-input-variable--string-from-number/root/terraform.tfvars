string_from_number = 12
