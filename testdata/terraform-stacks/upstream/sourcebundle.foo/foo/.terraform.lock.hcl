
provider "example.com/foo/bar" {
  version = "1.2.3"
  hashes = [
    "zh:abcdabcdabcdabcdabcdabcdabcdabcdabcdabcdabcdabcdabcdabcdabcdabcd"
  ]
}
