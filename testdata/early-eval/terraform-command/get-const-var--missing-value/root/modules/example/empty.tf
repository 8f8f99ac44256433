// Empty
