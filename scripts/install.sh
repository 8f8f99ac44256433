#!/bin/sh
# Install a prebuilt tfsum from the release archives, after checking the archive
# against the release's SHA256SUMS. action.yml installs tfsum with this script too.
#
#   curl -fsSL https://github.com/tfsum/tfsum/releases/latest/download/install.sh | sh
#   sh install.sh --version 0.1.0 --to /usr/local/bin
#
# Options:
#   --version V     release to install, without the leading v (default: latest)
#   --to DIR        where to put the binary (default: $HOME/.local/bin)
#   --repo O/N      GitHub repository the releases belong to (default: tfsum/tfsum)
#   --base-url URL  releases URL, for a mirror of the release page
#                   (default: https://github.com/O/N/releases)
#   --target T      Rust target triple of the archive (default: this machine's)
#
# Archives are BASE/download/vV/tfsum-TARGET.tar.gz (.zip for Windows) next to
# BASE/download/vV/SHA256SUMS; scripts/release-archive.sh writes both.
set -eu

version=latest
dest="${HOME:-}/.local/bin"
repo=tfsum/tfsum
base=""
target=""

die() {
    echo "install.sh: error: $*" >&2
    exit 1
}

while [ "$#" -gt 0 ]; do
    case "$1" in
        --version) version="${2:?--version needs a value}"; shift 2 ;;
        --to) dest="${2:?--to needs a value}"; shift 2 ;;
        --repo) repo="${2:?--repo needs a value}"; shift 2 ;;
        --base-url) base="${2:?--base-url needs a value}"; shift 2 ;;
        --target) target="${2:?--target needs a value}"; shift 2 ;;
        -h | --help) echo "usage: install.sh [--version V] [--to DIR] [--repo O/N] [--base-url URL] [--target T]"; exit 0 ;;
        *) die "unknown argument: $1 (try --help)" ;;
    esac
done
[ -n "$base" ] || base="https://github.com/$repo/releases"
# https only, redirects included, unless the user named a plain-http mirror.
case "$base" in
    http://*) proto='=http,https' ;;
    *) proto='=https' ;;
esac
version="${version#v}"

if [ -z "$target" ]; then
    case "$(uname -m)" in
        x86_64 | amd64) arch=x86_64 ;;
        arm64 | aarch64) arch=aarch64 ;;
        *) die "no prebuilt tfsum for CPU $(uname -m); build it from source: cargo install --locked --git https://github.com/$repo" ;;
    esac
    case "$(uname -s)" in
        # Static musl binaries: one archive for every Linux distribution.
        Linux) target="$arch-unknown-linux-musl" ;;
        Darwin) target="$arch-apple-darwin" ;;
        MINGW* | MSYS* | CYGWIN* | Windows_NT) target="$arch-pc-windows-msvc" ;;
        *) die "no prebuilt tfsum for $(uname -s); build it from source: cargo install --locked --git https://github.com/$repo" ;;
    esac
fi
case "$target" in
    *-windows-*) archive="tfsum-$target.zip" exe=".exe" ;;
    *) archive="tfsum-$target.tar.gz" exe="" ;;
esac

fetch() { # URL FILE
    if command -v curl >/dev/null 2>&1; then
        curl --proto "$proto" --proto-redir "$proto" --fail --silent --show-error \
            --location --retry 3 --output "$2" "$1"
    elif command -v wget >/dev/null 2>&1; then
        wget --quiet --output-document "$2" "$1"
    else
        die "neither curl nor wget is installed"
    fi
}

sha256_of() {
    if command -v sha256sum >/dev/null 2>&1; then
        sha256sum "$1" | cut -d' ' -f1
    elif command -v shasum >/dev/null 2>&1; then
        shasum -a 256 "$1" | cut -d' ' -f1
    else
        openssl dgst -sha256 -r "$1" | cut -d' ' -f1
    fi
}

if [ "$version" = latest ]; then
    command -v curl >/dev/null 2>&1 || die "--version latest needs curl; name a version"
    # GitHub answers BASE/latest with a redirect to BASE/tag/vX.Y.Z.
    tag_url="$(curl --proto "$proto" --proto-redir "$proto" --fail --silent --show-error --location \
        --output /dev/null --write-out '%{url_effective}' "$base/latest")" ||
        die "cannot find the latest release at $base/latest"
    version="${tag_url##*/tag/}"
    version="${version#v}"
    case "$version" in
        [0-9]*) ;;
        *) die "cannot read the latest version from $tag_url" ;;
    esac
fi

url="$base/download/v$version"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

echo "install.sh: downloading tfsum $version ($target)" >&2
fetch "$url/SHA256SUMS" "$tmp/SHA256SUMS" || die "cannot download $url/SHA256SUMS"
fetch "$url/$archive" "$tmp/$archive" || die "cannot download $url/$archive"

# The expected sum is the line naming exactly this archive ("HASH  NAME" or "HASH *NAME").
expected="$(awk -v f="$archive" '$2 == f || $2 == "*" f { print $1 }' "$tmp/SHA256SUMS")"
[ -n "$expected" ] || die "$url/SHA256SUMS has no line for $archive"
actual="$(sha256_of "$tmp/$archive")"
[ "$actual" = "$expected" ] ||
    die "checksum mismatch for $archive: SHA256SUMS says $expected, the download is $actual"

case "$archive" in
    *.zip) (cd "$tmp" && unzip -q "$archive") ;;
    *) tar -xzf "$tmp/$archive" -C "$tmp" ;;
esac
binary="$tmp/tfsum-$target/tfsum$exe"
[ -f "$binary" ] || die "$archive does not contain tfsum-$target/tfsum$exe"

mkdir -p "$dest"
# Copy beside the destination and rename, so a failed copy never leaves half a binary.
cp "$binary" "$dest/.tfsum$exe.partial"
chmod 0755 "$dest/.tfsum$exe.partial"
mv -f "$dest/.tfsum$exe.partial" "$dest/tfsum$exe"
echo "install.sh: installed $("$dest/tfsum$exe" --version) to $dest/tfsum$exe" >&2
case ":${PATH:-}:" in
    *":$dest:"*) ;;
    *) echo "install.sh: note: $dest is not on PATH" >&2 ;;
esac
