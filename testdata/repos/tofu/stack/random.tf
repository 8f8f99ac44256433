# No random.tofu beside it, so OpenTofu reads this file too; `random` is the local
# name main.tofu declares.
resource "random_pet" "queue" {}
