# Expressions broken over lines inside brackets, where Terraform ignores newlines.

variable "policy" {
  type    = string
  default = ""
}

locals {
  policy = (var.policy != "" ?
    var.policy :
    jsonencode({
      Version = "2012-10-17"
    })
  )
  choice = (
    var.policy == ""
    ? "default"
    : "custom"
  )
  sum = [
    1
    + 2,
    3
  ]
  call = coalesce(
    var.policy == "" ? null : var.policy,
    "fallback"
  )
  index = local.sum[
    0
  ]
  chain = (var.policy == "a" ? 1 :
    var.policy == "b" ? 2 :
  3)
  splat = [for s in [{ id = 1 }] : s][*].id
  attr  = [{ id = 1 }].*.id
  not   = !!true && -1 < 0
  negated = (!
    contains(["a", "b"], var.policy)
  )
}

resource "null_resource" "policy" {
  triggers = { policy = local.policy }
}
