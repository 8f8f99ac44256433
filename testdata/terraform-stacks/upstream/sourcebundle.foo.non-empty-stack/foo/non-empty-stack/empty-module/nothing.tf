# This module is intentionally empty, since it's called from stack
# configurations where we're only testing the stack configuration stuff and
# not the main Terraform language stuff.
