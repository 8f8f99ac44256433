#!/usr/bin/env bash
# Build and pack tfsum's release archives. .github/workflows/release.yml runs this for
# each target; `make dist` runs it for this machine and the packaging tests use `pack`
# and `sums` on the binary `cargo build --release` made, so the recipe a release uses
# is the one tested here.
#
#   scripts/release-archive.sh build TARGET OUT_DIR        cargo build, then pack
#   scripts/release-archive.sh pack TARGET BINARY OUT_DIR  pack a binary built already
#   scripts/release-archive.sh sums OUT_DIR                write OUT_DIR/SHA256SUMS
#
# An archive is OUT_DIR/tfsum-TARGET.tar.gz (.zip for Windows) holding
# tfsum-TARGET/{tfsum[.exe],README.md,CHANGELOG.md}: the layout that cargo binstall
# (package.metadata.binstall in Cargo.toml), scripts/install.sh and action.yml expect.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

die() {
    echo "release-archive.sh: error: $*" >&2
    exit 1
}

is_windows() {
    case "$1" in *-windows-*) return 0 ;; *) return 1 ;; esac
}

archive_name() {
    if is_windows "$1"; then echo "tfsum-$1.zip"; else echo "tfsum-$1.tar.gz"; fi
}

sha256_of() {
    if command -v sha256sum >/dev/null 2>&1; then
        sha256sum "$1" | cut -d' ' -f1
    else
        shasum -a 256 "$1" | cut -d' ' -f1
    fi
}

# A static binary has no program interpreter (the dynamic loader): what "static musl"
# promises users of any Linux distribution.
check_static() {
    if command -v readelf >/dev/null 2>&1 && readelf -l "$1" | grep 'INTERP' >/dev/null; then
        die "$1 is dynamically linked; a *-linux-musl release must be static"
    fi
}

build() {
    local target="$1" out="$2" exe=""
    is_windows "$target" && exe=".exe"
    case "$target" in
        *-linux-musl)
            # cargo-zigbuild links musl statically for both arm64 and amd64 from one
            # x86_64 runner, with no system musl toolchain (and builds ring's C code).
            (cd "$root" && cargo zigbuild --release --locked --target "$target")
            check_static "$root/target/$target/release/tfsum"
            ;;
        *)
            (cd "$root" && cargo build --release --locked --target "$target")
            ;;
    esac
    pack "$target" "$root/target/$target/release/tfsum$exe" "$out"
}

pack() {
    local target="$1" binary="$2" out="$3"
    [ -f "$binary" ] || die "no binary at $binary"
    local exe="" name="tfsum-$target"
    is_windows "$target" && exe=".exe"
    mkdir -p "$out"
    out="$(cd "$out" && pwd)"
    local staging
    staging="$(mktemp -d)"
    # shellcheck disable=SC2064 # expand now: the trap must remove this directory
    trap "rm -rf '$staging'" RETURN
    mkdir "$staging/$name"
    cp "$binary" "$staging/$name/tfsum$exe"
    chmod 0755 "$staging/$name/tfsum$exe"
    cp "$root/README.md" "$root/CHANGELOG.md" "$staging/$name/"
    local archive
    archive="$out/$(archive_name "$target")"
    rm -f "$archive"
    if is_windows "$target"; then
        if command -v 7z >/dev/null 2>&1; then
            (cd "$staging" && 7z a -tzip -bso0 -bsp0 "$archive" "$name")
        elif command -v zip >/dev/null 2>&1; then
            (cd "$staging" && zip -qr "$archive" "$name")
        else
            die "neither 7z nor zip is installed; cannot write $archive"
        fi
    else
        tar -czf "$archive" -C "$staging" "$name"
    fi
    echo "$archive"
}

sums() {
    local out="$1"
    [ -d "$out" ] || die "no directory $out"
    (
        cd "$out"
        shopt -s nullglob
        local archives=(tfsum-*.tar.gz tfsum-*.zip)
        [ "${#archives[@]}" -gt 0 ] || die "no tfsum-* archives in $out"
        : >SHA256SUMS.partial
        local f
        for f in $(printf '%s\n' "${archives[@]}" | LC_ALL=C sort); do
            printf '%s  %s\n' "$(sha256_of "$f")" "$f" >>SHA256SUMS.partial
        done
        mv -f SHA256SUMS.partial SHA256SUMS
    )
    echo "$out/SHA256SUMS"
}

case "${1:-}" in
    build) [ "$#" -eq 3 ] || die "usage: $0 build TARGET OUT_DIR"; build "$2" "$3" ;;
    pack) [ "$#" -eq 4 ] || die "usage: $0 pack TARGET BINARY OUT_DIR"; pack "$2" "$3" "$4" ;;
    sums) [ "$#" -eq 2 ] || die "usage: $0 sums OUT_DIR"; sums "$2" ;;
    *) die "usage: $0 build|pack|sums ... (see the top of this file)" ;;
esac
