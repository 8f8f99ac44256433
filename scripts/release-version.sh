#!/usr/bin/env bash
# Print the version being released: Cargo.toml's, after checking that pyproject.toml
# (the project pre-commit installs for the *-pypi hooks) has the same version and pins
# tfsum to it. With a tag (v1.2.3), also check that the tag names that version.
#
#   scripts/release-version.sh [TAG]
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

die() {
    echo "release-version.sh: error: $*" >&2
    exit 1
}

# The first line-leading `version = "…"` is the [workspace.package] (or [project]) one:
# the [package] says `version.workspace = true`, and every dependency's version sits
# inside an inline table.
first_version() {
    sed -n 's/^version = "\(.*\)"$/\1/p' "$1" | head -n 1
}

cargo="$(first_version "$root/Cargo.toml")"
[ -n "$cargo" ] || die "no version in Cargo.toml"
hook="$(first_version "$root/pyproject.toml")"
pin="$(sed -n 's/.*"tfsum==\([^"]*\)".*/\1/p' "$root/pyproject.toml" | head -n 1)"
[ "$hook" = "$cargo" ] || die "pyproject.toml has version \"$hook\", Cargo.toml \"$cargo\""
[ "$pin" = "$cargo" ] || die "pyproject.toml pins tfsum==$pin, Cargo.toml has $cargo"
if [ "$#" -gt 0 ]; then
    [ "$1" = "v$cargo" ] || die "tag $1 does not name version $cargo (expected v$cargo)"
fi
echo "$cargo"
