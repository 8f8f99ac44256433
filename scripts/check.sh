#!/usr/bin/env bash
# The contributor's loop (`make check`): formats the packages that changed, runs clippy
# over the workspace and the tests of the packages that changed, in seconds where
# `make test` takes minutes.
#
#   scripts/check.sh [BASE]
#
# "Changed" means a file that differs from BASE (default HEAD: what is not committed
# yet, untracked files included) under crates/<package>/ or, for the tfsum package, under
# src/, tests/, benches/ or testdata/. Clippy runs over every crate, since a change can
# break the crates that use it; cargo rechecks only those. The packages' tests run in
# the order of the layers, lowest first, and stop at the first failure. Nothing changed
# means nothing tested. `make test` stays what CI runs: it covers everything else.
set -euo pipefail
cd "$(dirname "$0")/.."

base="${1:-HEAD}"
changed=$( (git diff --name-only "$base" --; git ls-files --others --exclude-standard) | sort -u)

packages=()
for crate in vocab disk net sources config stages report; do
    if grep -q "^crates/tfsum-$crate/" <<<"$changed"; then
        packages+=("tfsum-$crate")
    fi
done
if grep -qE '^(src|tests|benches|testdata)/|^(Cargo\.toml|Cargo\.lock|build\.rs)$' <<<"$changed"; then
    packages+=(tfsum)
fi

if [ "${#packages[@]}" -eq 0 ]; then
    echo "check.sh: no package changed against $base; nothing to check"
    exit 0
fi
echo "check.sh: changed against $base: ${packages[*]}"

cargo fmt "${packages[@]/#/-p}"
cargo clippy --locked --workspace --all-targets --quiet -- -D warnings
for package in "${packages[@]}"; do
    cargo test --locked --quiet -p "$package" --all-targets
done
