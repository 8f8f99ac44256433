#!/usr/bin/env python3
"""Builds testdata/demo/mirror, the tiny filesystem mirror `make demo` locks from.

Two providers, two platforms each, one per layout (spec §7):

* hashicorp/null 3.2.1 packed:   registry.terraform.io/hashicorp/null/terraform-provider-null_3.2.1_OS_ARCH.zip
* hashicorp/random 3.6.0 unpacked: registry.terraform.io/hashicorp/random/3.6.0/OS_ARCH/

The "binaries" are short texts: only their bytes and names matter to the hashes. Zip
entries carry a fixed timestamp, so rerunning the script reproduces the committed files
byte for byte.
"""
import os
import shutil
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
MIRROR = os.path.join(HERE, "mirror")
PLATFORMS = ["linux_amd64", "darwin_arm64"]
HOST = "registry.terraform.io"


def binary(ns, ty, version, platform):
    return f"demo provider {ns}/{ty} v{version} for {platform} (not a real program)\n".encode()


def main():
    shutil.rmtree(MIRROR, ignore_errors=True)
    null_dir = os.path.join(MIRROR, HOST, "hashicorp", "null")
    os.makedirs(null_dir)
    for platform in PLATFORMS:
        path = os.path.join(null_dir, f"terraform-provider-null_3.2.1_{platform}.zip")
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
            info = zipfile.ZipInfo("terraform-provider-null_v3.2.1_x5", (2024, 1, 1, 0, 0, 0))
            info.external_attr = 0o755 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, binary("hashicorp", "null", "3.2.1", platform))
    for platform in PLATFORMS:
        pkg = os.path.join(MIRROR, HOST, "hashicorp", "random", "3.6.0", platform)
        os.makedirs(pkg)
        with open(os.path.join(pkg, "terraform-provider-random_v3.6.0_x5"), "wb") as f:
            f.write(binary("hashicorp", "random", "3.6.0", platform))
        with open(os.path.join(pkg, "LICENSE"), "wb") as f:
            f.write(b"Demo package for tfsum; not a real provider.\n")


if __name__ == "__main__":
    main()
