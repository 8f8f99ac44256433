terraform {
  # Nothing listens on port 1: the fetch fails and fails this unit alone.
  source = "git::http://127.0.0.1:1/acme/modules.git//vpc?ref=v1.0.0"
}
