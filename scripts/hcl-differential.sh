#!/usr/bin/env bash
# Compares tfsum's HCL parser with Terraform 1.0.3's (`terraform fmt -`) on a corpus and
# lists every file they disagree on; fails when tfsum rejects a file Terraform accepts.
# Default corpus: fuzz/corpus/config_load (fill it with fuzz/run.sh) and testdata/**/*.tf.
# Other corpora: scripts/hcl-differential.sh DIR...
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$#" -gt 0 ]; then
    TFSUM_DIFF_CORPUS="$(IFS=:; echo "$*")"
    export TFSUM_DIFF_CORPUS
fi
exec cargo test --test it hcl_shapes::differential_against_terraform -- --ignored --nocapture
