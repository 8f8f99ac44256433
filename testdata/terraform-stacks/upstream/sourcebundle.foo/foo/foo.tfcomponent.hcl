# This is intentionally empty. Some of our tests use this to straightfowardly
# test the empty configuration case, so adding declarations here will break
# those tests.
