#!/usr/bin/env bash
# Runs the vendored hcl-edit's own tests (vendor/README.md) and checks that
# vendor/hcl-edit.patch still is the difference from the crates.io release.
#
# vendor/hcl-edit is a workspace of its own. Its Cargo.lock (ignored by git) is seeded from
# tfsum's, so the tests build against the dependency versions tfsum ships; cargo drops what
# hcl-edit does not use and adds its dev-dependencies. Only that step, redone when tfsum's
# Cargo.lock changes, may need crates.io; the tests themselves run --locked.
set -euo pipefail
cd "$(dirname "$0")/.."

crate=vendor/hcl-edit
export CARGO_TARGET_DIR="$PWD/target/vendor-test"
seeded="$CARGO_TARGET_DIR/seeded-from.lock"
mkdir -p "$CARGO_TARGET_DIR"

if [ ! -f "$crate/Cargo.lock" ] || ! cmp -s Cargo.lock "$seeded"; then
    cp Cargo.lock "$crate/Cargo.lock"
    cargo fetch --quiet --manifest-path "$crate/Cargo.toml"
    cp Cargo.lock "$seeded"
fi

# The crate's unit tests need upstream's unpublished `testdata` crate: these are the rest.
cargo test --locked --manifest-path "$crate/Cargo.toml" \
    --test regressions --test parse --test spans

scripts/hcl-edit-patch.sh --check
