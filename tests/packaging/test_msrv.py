"""The minimum supported Rust version stays true: Cargo.toml's `rust-version`, which the
README repeats, is at least the `rust-version` of every locked crate a build compiles.

"Compiled" means what `cargo build --locked` builds for this machine's target: the normal
and build dependencies reachable from tfsum with the features actually enabled, which is
what `cargo tree -e normal,build` lists. `cargo metadata` alone also lists crates that
only a disabled optional feature would pull in (kstring 2.0.5, which asks for Rust 1.96,
is locked through hcl-primitives' `perf` feature and never compiled), so its versions
come from there but the list does not. Dev-dependencies do not count: `cargo install`,
the wheel, the sdist and the release archives never build them (running the test suite
may need a newer Rust). Crates only other targets build (the macOS keychain, Windows)
are not downloaded on this machine and so not checked.

tfsum's own code is checked against the same number by clippy's `incompatible_msrv` lint
(standard library items newer than `rust-version`), which `make lint` denies.
"""

from __future__ import annotations

import json
import re

from conftest import ROOT, package_field, run


def version_key(text: str) -> tuple[int, ...]:
    parts = [int(p) for p in text.split(".")]
    return tuple(parts + [0] * (3 - len(parts)))


def compiled_crates() -> set[tuple[str, str]]:
    """(name, version) of every crate `cargo build --locked` compiles here, tfsum included."""
    out = run(
        ["cargo", "tree", "--locked", "--offline", "-e", "normal,build", "--prefix", "none", "--format", "{p}"],
        cwd=ROOT,
    ).stdout
    crates = set()
    for line in out.splitlines():
        name, version = line.split()[:2]
        crates.add((name, version.removeprefix("v")))
    return crates


def declared_rust_versions() -> dict[tuple[str, str], str | None]:
    """Each locked package's `rust-version` (None when it declares none)."""
    host = re.search(r"^host: (\S+)$", run(["rustc", "-vV"]).stdout, re.M).group(1)
    meta = json.loads(
        run(
            ["cargo", "metadata", "--format-version", "1", "--locked", "--offline", "--filter-platform", host],
            cwd=ROOT,
        ).stdout
    )
    return {(p["name"], p["version"]): p.get("rust_version") for p in meta["packages"]}


def declared_msrv() -> str:
    return package_field("rust-version")


def test_no_compiled_crate_needs_a_newer_rust_than_rust_version():
    msrv = declared_msrv()
    declared = declared_rust_versions()
    crates = compiled_crates()
    assert ("tfsum", package_field("version")) in crates
    missing = crates - declared.keys()
    assert not missing, f"cargo tree lists crates cargo metadata does not: {sorted(missing)}"
    newer = sorted(
        (f"{name} {version} needs Rust {declared[(name, version)]}")
        for name, version in crates
        if declared[(name, version)] and version_key(declared[(name, version)]) > version_key(msrv)
    )
    assert not newer, (
        f"Cargo.toml says rust-version = {msrv!r}, but locked crates need newer: {newer}. "
        "Raise rust-version (and the README's minimum) or lock older versions."
    )
    highest = max((declared[c] for c in crates if declared[c]), key=version_key)
    print(f"rust-version {msrv}; the highest a compiled crate declares: {highest}")


def test_readme_states_the_same_minimum():
    msrv = declared_msrv()
    readme = (ROOT / "README.md").read_text()
    stated = re.findall(r"Rust (\d+\.\d+(?:\.\d+)?) or newer", readme)
    assert stated, "README.md names no minimum Rust (`Rust X.Y or newer`)"
    for doc in [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        stated = re.findall(r"Rust (\d+\.\d+(?:\.\d+)?) or\s+newer", doc.read_text())
        assert set(stated) <= {msrv}, f"{doc.relative_to(ROOT)} says Rust {stated}, Cargo.toml rust-version = {msrv}"
