#!/usr/bin/env bash
# A bounded fuzz run: every target of fuzz/ for SECONDS (default 10) from its seeds, so
# that the targets build and the seeds and some thousands of mutations of them pass.
# cargo-fuzz comes from crates.io, installed once into target/tools; fuzz/run.sh does
# the rest (stable Rust with RUSTC_BOOTSTRAP=1). A finding fails the run and is saved
# under fuzz/artifacts/TARGET/.
set -euo pipefail
seconds="${1:-10}"
cd "$(dirname "$0")/.."
tools="$PWD/target/tools"
version=0.13.2
if ! "$tools/bin/cargo-fuzz" --version 2>/dev/null | grep -F "$version" >/dev/null; then
    cargo install --locked --quiet --root "$tools" --version "$version" cargo-fuzz
fi
export PATH="$tools/bin:$PATH"
exec fuzz/run.sh "$seconds"
