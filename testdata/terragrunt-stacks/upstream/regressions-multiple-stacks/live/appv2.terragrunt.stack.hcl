
unit "unit3" {
  source = "../units/template"
  path   = "unit3"
}

unit "unit4" {
  source = "../units/template"
  path   = "unit4"
}
