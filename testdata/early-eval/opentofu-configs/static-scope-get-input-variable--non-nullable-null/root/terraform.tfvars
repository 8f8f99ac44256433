not_nullable = null
