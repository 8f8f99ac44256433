nullable_null_string = null
