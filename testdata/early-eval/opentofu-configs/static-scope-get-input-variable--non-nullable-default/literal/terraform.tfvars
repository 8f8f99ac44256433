non_nullable_default = null
