#!/usr/bin/env bash
# Install Azurite, Microsoft's Azure Storage emulator, from npm into target/tools/azurite:
# the shared-cache tests start its blob service on 127.0.0.1 to exercise az:// URLs.
#
# Idempotent: does nothing when the pinned version is installed. Prints the blob
# server's path on success; exits non-zero loudly on any failure.
set -euo pipefail

version=3.35.0
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
prefix="$root/target/tools/azurite"
server="$prefix/node_modules/.bin/azurite-blob"

installed() {
    [ -x "$server" ] && [ "$(node -p "require('$prefix/node_modules/azurite/package.json').version" 2>/dev/null)" = "$version" ]
}

if installed; then
    echo "$server"
    exit 0
fi
command -v npm >/dev/null 2>&1 || { echo "fetch-azurite.sh: error: npm not found (apt-get install npm)" >&2; exit 1; }
rm -rf "$prefix"
mkdir -p "$prefix"
npm install --prefix "$prefix" --silent --no-audit --no-fund "azurite@$version" \
    || { echo "fetch-azurite.sh: error: npm install azurite@$version failed" >&2; exit 1; }
installed || { echo "fetch-azurite.sh: error: $server missing after install" >&2; exit 1; }
echo "$server"
