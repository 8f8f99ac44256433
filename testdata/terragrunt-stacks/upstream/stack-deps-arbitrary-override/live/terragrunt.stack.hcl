# An autoinclude patches a unit with config beyond dependency/inputs. Here a
# generate block is injected; it must land in the generated unit and emit the file
# when the unit runs.
unit "gen" {
  source = "../catalog/units/gen"
  path   = "gen"

  autoinclude {
    generate "injected" {
      path      = "injected.tf"
      if_exists = "overwrite"
      contents  = <<-TF
        output "injected" {
          value = "injected-by-autoinclude"
        }

        # tfsum: not in upstream's fixture (a second required_providers block would be
        # Terraform's "Duplicate required providers configuration").
        resource "random_id" "injected" {
          byte_length = 4
        }
      TF
    }
  }
}
