string = "hello"
