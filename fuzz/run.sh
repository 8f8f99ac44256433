#!/usr/bin/env bash
# Runs each fuzz target for SECONDS (default 120) with seeds from testdata/ and
# fuzz/seeds/ (scripts/fuzz-smoke.sh installs cargo-fuzz first, for a short run). Stable Rust only on this machine: RUSTC_BOOTSTRAP=1 lets cargo-fuzz use
# the nightly flags it needs, `-s none` skips AddressSanitizer (whose runtime only
# nightly toolchains ship) and `--dev` avoids a release build of every dependency;
# panics, overflows (debug assertions are on) and timeouts are still
# caught. A finding is saved under fuzz/artifacts/TARGET/.
set -euo pipefail
seconds="${1:-120}"
cd "$(dirname "$0")/.."
export RUSTC_BOOTSTRAP=1
run() {
    local target="$1"
    shift
    mkdir -p "fuzz/corpus/$target"
    cargo fuzz run --dev -s none "$target" "fuzz/corpus/$target" "$@" -- \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=1024 -print_final_stats=1
}
run lockfile_parse testdata/lockfiles
run constraints_parse fuzz/seeds/constraints
run zip_hash fuzz/seeds/zip_hash
run config_load testdata/hcl-shapes testdata/repos testdata/config
run terragrunt_eval fuzz/seeds/terragrunt_eval
run module_source fuzz/seeds/module_source
run module_archive fuzz/seeds/module_archive
