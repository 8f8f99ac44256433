#!/usr/bin/env bash
# Writes vendor/hcl-edit.patch: the vendored hcl-edit's changes as a unified diff against the
# crates.io release it was copied from, with the paths of the upstream repository
# (crates/hcl-edit/...), ready for `git apply` there. With --check, fails instead when the
# committed patch differs from what it would write.
#
# The release is fetched with cargo (checksum-verified against the crates.io index) into a
# scratch project under target/, so a second run needs no network.
set -euo pipefail
cd "$(dirname "$0")/.."

version=0.10.0
patch=vendor/hcl-edit.patch
check=false
case "${1:-}" in
    --check) check=true ;;
    "") ;;
    *) echo "usage: $0 [--check]" >&2; exit 2 ;;
esac

# The upstream source, as cargo unpacked it from the .crate.
scratch=target/vendor-test/upstream
mkdir -p "$scratch/src"
cat >"$scratch/Cargo.toml" <<EOF
[package]
name = "hcl-edit-upstream"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
hcl-edit = "=$version"

[workspace]
EOF
: >"$scratch/src/lib.rs"
manifest=$(cargo metadata --quiet --format-version 1 --manifest-path "$scratch/Cargo.toml" |
    grep -o "\"manifest_path\":\"[^\"]*/hcl-edit-$version/Cargo.toml\"" | cut -d'"' -f4)
upstream=${manifest%/Cargo.toml}
if [ -z "$manifest" ] || [ ! -d "$upstream/src" ]; then
    echo "$0: no source for hcl-edit $version from cargo" >&2
    exit 1
fi

# A throwaway repository: upstream's files committed, the vendored ones on top, so that the
# diff carries upstream's paths. Git's configuration is ignored for a stable output.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
git() {
    command git -C "$work" -c core.excludesFile=/dev/null -c core.autocrlf=false \
        -c user.name=tfsum -c user.email=tfsum@localhost "$@"
}
git init --quiet
mkdir -p "$work/crates"
# Neither the packaged Cargo.lock nor cargo's unpack marker is part of the copy (the
# Cargo.lock in vendor/ is the one seeded by scripts/test-vendored-hcl-edit.sh).
cp -R "$upstream" "$work/crates/hcl-edit"
rm -f "$work/crates/hcl-edit/Cargo.lock" "$work/crates/hcl-edit/.cargo-ok"
git add -A && git commit --quiet -m upstream
rm -rf "$work/crates/hcl-edit"
cp -R vendor/hcl-edit "$work/crates/hcl-edit"
rm -f "$work/crates/hcl-edit/Cargo.lock"
git add -A

out="$work/hcl-edit.patch"
{
    echo "Changes to hcl-edit $version (crates.io) carried by tfsum's vendor/hcl-edit;"
    echo "see vendor/README.md. Apply in the hcl-rs repository with git apply."
    echo "Written by scripts/hcl-edit-patch.sh."
    echo
    git diff --cached --no-color --no-ext-diff --diff-algorithm=myers --full-index
} >"$out"

if $check; then
    if ! diff -u "$patch" "$out"; then
        echo "$0: $patch is stale: run scripts/hcl-edit-patch.sh" >&2
        exit 1
    fi
else
    cp "$out" "$patch"
fi
