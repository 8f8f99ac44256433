#!/usr/bin/env bash
# Install the S3-compatible server the shared-cache tests start on 127.0.0.1: moto's
# `moto_server`, from PyPI, into its own virtual environment under target/tools/moto.
#
# Why moto: it speaks the real S3 REST protocol (SigV4, path-style buckets) including
# conditional creates (`If-None-Match: *`), and it is a pure-Python wheel set that
# installs in seconds; a Rust server (s3s-fs) would add minutes of compiling to every
# fresh CI run on 2 cores.
#
# Idempotent: does nothing when the pinned version is installed. Prints the server's
# path on success; exits non-zero loudly on any failure.
set -euo pipefail

version=5.2.5
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$root/target/tools/moto"
server="$venv/bin/moto_server"

if [ -x "$server" ] && "$venv/bin/python" -c "import moto, sys; sys.exit(moto.__version__ != '$version')" 2>/dev/null; then
    echo "$server"
    exit 0
fi

rm -rf "$venv"
mkdir -p "$(dirname "$venv")"
python3 -m venv "$venv" || { echo "fetch-s3-server.sh: error: python3 -m venv failed" >&2; exit 1; }
"$venv/bin/pip" install --quiet --disable-pip-version-check "moto[s3,server]==$version" \
    || { echo "fetch-s3-server.sh: error: pip install moto[s3,server]==$version failed" >&2; exit 1; }
[ -x "$server" ] || { echo "fetch-s3-server.sh: error: $server missing after install" >&2; exit 1; }
echo "$server"
