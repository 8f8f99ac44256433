#!/usr/bin/env bash
# Install the OCI registry the network tests push to and pull from: Debian's
# `docker-registry` package (CNCF distribution 2.8.2), unpacked into
# target/tools/docker-registry/ (binary at usr/bin/docker-registry), not installed
# system-wide. `apt-get download` works as any user and needs no root; `dpkg -x` only
# unpacks the archive, so no maintainer script runs and no service starts.
#
# Why this registry: it is the reference implementation of the distribution API (the
# one OpenTofu's OCI mirrors are specified against), it keeps manifest bytes verbatim
# (artifactType, descriptors' platform), and it is one static Go binary from the
# distribution's own package archive. It needs `apt-get update` to have run once on
# the machine (the package lists).
#
# Idempotent: does nothing when the pinned version is unpacked. Prints the binary's
# path on success; exits non-zero loudly on any failure.
set -euo pipefail

version=2.8.2+ds1-1
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="$root/target/tools/docker-registry"
binary="$dir/usr/bin/docker-registry"

if [ -x "$binary" ] && [ "$(cat "$dir/version" 2>/dev/null)" = "$version" ]; then
    echo "$binary"
    exit 0
fi

fail() { echo "fetch-docker-registry.sh: error: $*" >&2; exit 1; }
command -v apt-get >/dev/null 2>&1 || fail "apt-get not found (the package comes from Debian's archive)"
command -v dpkg >/dev/null 2>&1 || fail "dpkg not found"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# apt-get downloads into the current directory.
(cd "$work" && apt-get download --quiet "docker-registry=$version" >/dev/null) \
    || fail "apt-get download docker-registry=$version failed (run apt-get update first?)"
deb=$(find "$work" -maxdepth 1 -name 'docker-registry_*.deb' | head -n 1)
[ -n "$deb" ] || fail "no docker-registry .deb downloaded"

rm -rf "$dir"
mkdir -p "$dir"
dpkg -x "$deb" "$dir" || fail "dpkg -x $deb failed"
[ -x "$binary" ] || fail "$binary missing after unpacking"
"$binary" --version >/dev/null || fail "$binary does not run"
echo "$version" > "$dir/version"
echo "$binary"
