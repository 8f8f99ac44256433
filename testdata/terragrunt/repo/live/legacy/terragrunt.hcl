# A legacy root configuration: included by its children, no source, no .tf files.
remote_state {
  backend = "local"
  config  = {}
}
