"""The source distribution: what pip builds on a platform PyPI has no tfsum wheel for.

The sdist is built as the release workflow builds it (`maturin sdist` in python/), then
pip builds a wheel from it in a fresh virtualenv with no network: pip takes maturin from
the local wheelhouse (PIP_NO_INDEX), cargo takes every crate from its registry cache
(CARGO_NET_OFFLINE; the build that made the packaged binary filled it). Whatever the
sdist lacks fails the build here, as it would for a user.

What this must prove is that the sdist holds everything a build reads, not how rustc
optimizes, so the wheel is built in the profile the other packaging tests package
(PACKAGING_PROFILE: dev in `make test`) and into this tree's target/. The locked crates
that build compiled are reused and only the sdist's own crates (tfsum's, the vendored
hcl-edit and what depends on it) are compiled: about a minute in dev, four in release. The
sdist is made with SOURCE_DATE_EPOCH set to now: maturin stamps its files with that time
(a fixed date in 2006 without it), and cargo, which decides freshness by modification
time, would otherwise take an older build of the same crates for this one. The test
checks that each of them was compiled.
"""

from __future__ import annotations

import os
import sys
import tarfile
import time
import tomllib
from pathlib import Path

import pytest

from conftest import ROOT, clean_env, demo_copy, demo_lock_args, packaging_profile, run, tool

SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"


@pytest.fixture(scope="module")
def sdist(tmp_path_factory, version) -> Path:
    out = tmp_path_factory.mktemp("sdist")
    env = dict(os.environ, SOURCE_DATE_EPOCH=str(int(time.time())))
    run([tool("maturin"), "sdist", "--out", out], cwd=ROOT / "python", env=env)
    found = sorted(out.glob("*.tar.gz"))
    assert [p.name for p in found] == [f"tfsum-{version}.tar.gz"]
    return found[0]


def test_sdist_holds_every_crate_cargo_toml_points_at(sdist, version):
    top = f"tfsum-{version}"
    with tarfile.open(sdist) as t:
        names = set(t.getnames())
        manifest = tomllib.load(t.extractfile(f"{top}/Cargo.toml"))
    for name in ["Cargo.toml", "Cargo.lock", "pyproject.toml", "PKG-INFO", "src/main.rs"]:
        assert f"{top}/{name}" in names, name
    # Every local crate the manifest names: through [patch], or a path dependency of the
    # package or of the workspace (the layers' crates, which `members` names by a glob).
    workspace = manifest.get("workspace", {})
    paths = [dep["path"] for dep in manifest.get("patch", {}).get("crates-io", {}).values()]
    for table in [manifest["dependencies"], workspace.get("dependencies", {})]:
        paths += [dep["path"] for dep in table.values() if isinstance(dep, dict) and "path" in dep]
    assert "vendor/hcl-edit" in paths, manifest
    layers = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "crates").glob("tfsum-*"))
    assert layers and set(layers) <= set(paths), (layers, paths)
    for path in paths:
        assert f"{top}/{path}/Cargo.toml" in names, path
        assert f"{top}/{path}/src/lib.rs" in names, path


def test_wheel_built_from_the_sdist_offline_runs_and_locks_the_demo(
    tmp_path, sdist, version, terraform_demo_locks
):
    cargo_home = Path(os.environ.get("CARGO_HOME", Path.home() / ".cargo"))
    env = clean_env(
        tmp_path / "home",
        PATH=f"{cargo_home / 'bin'}:{SYSTEM_PATH}",
        CARGO_HOME=str(cargo_home),
        RUSTUP_HOME=os.environ.get("RUSTUP_HOME", str(Path.home() / ".rustup")),
        CARGO_NET_OFFLINE="true",
        CARGO_TARGET_DIR=str(ROOT / "target"),
        PIP_NO_INDEX="1",
        PIP_FIND_LINKS=str(ROOT / "target" / "packaging" / "wheelhouse"),
        # maturin's own copy of the wheel, which would go to target/wheels, where the
        # wheel `make wheel` built must be the only one.
        MATURIN_PEP517_ARGS=f"--profile {packaging_profile()} --out {tmp_path / 'maturin-out'}",
    )
    venv = tmp_path / "venv"
    run([sys._base_executable, "-m", "venv", venv], env=env)
    wheels = tmp_path / "wheels"
    started = time.monotonic()
    built = run([venv / "bin" / "pip", "wheel", "-v", "--no-deps", "--wheel-dir", wheels, sdist], env=env)
    print(f"wheel from the sdist built in {time.monotonic() - started:.0f}s")
    for crate in ["hcl-edit", "tfsum", *(p.name for p in (ROOT / "crates").glob("tfsum-*"))]:
        assert f"Compiling {crate} v" in built.stderr + built.stdout, f"{crate} was not compiled"
    [wheel] = wheels.glob(f"tfsum-{version}-*.whl")
    run([venv / "bin" / "pip", "install", "--no-index", wheel], env=env)

    tfsum = venv / "bin" / "tfsum"
    assert run([tfsum, "--version"], env=env).stdout.strip() == f"tfsum {version}"
    roots = demo_copy(tmp_path)
    run([tfsum, "lock", "-r", *demo_lock_args(), roots], env=env)
    for root, expected in terraform_demo_locks.items():
        assert (roots / root / ".terraform.lock.hcl").read_bytes() == expected, root
