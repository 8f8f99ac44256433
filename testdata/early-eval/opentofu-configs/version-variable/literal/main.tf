variable "module_version" { default = "v1.0" }

module "foo" {
  source  = "{{MODULES}}/mod/foo/foo"
  version = "v1.0"
}
