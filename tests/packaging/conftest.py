"""Shared fixtures of the packaging tests (`make test-packaging`).

These tests check what a user installs: the wheel, the pre-commit hooks as pre-commit
runs them, the release archives with scripts/install.sh, and the GitHub Action's check
step. `make test-packaging` builds what they need first (the binary, in the profile
PACKAGING_PROFILE names; the wheel from it; the Python tools in target/packaging/venv)
and runs them with that virtualenv's Python, so `maturin`, `pre-commit` and
`actionlint` sit next to `sys.executable`. Nothing here reaches the network: packages come from the files built
in target/ and from testdata/demo's filesystem mirror.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TOOLS = Path(sys.executable).parent
DEMO = ROOT / "testdata" / "demo"
DEMO_PLATFORMS = ["linux_amd64", "darwin_arm64"]


def run(args, *, cwd=None, env=None, check=True, **kwargs) -> subprocess.CompletedProcess:
    """Runs a command, capturing text output; on failure shows the whole of it."""
    proc = subprocess.run(
        [str(a) for a in args], cwd=cwd, env=env, text=True, capture_output=True, **kwargs
    )
    if check and proc.returncode != 0:
        pytest.fail(
            f"{' '.join(map(str, args))} exited {proc.returncode}\n"
            f"--- stdout\n{proc.stdout}\n--- stderr\n{proc.stderr}"
        )
    return proc


def tool(name: str) -> Path:
    """A command installed in the packaging virtualenv."""
    path = TOOLS / name
    if not path.exists():
        pytest.fail(f"{path} is missing: run the tests with `make test-packaging`")
    return path


def clean_env(home: Path, **extra: str) -> dict[str, str]:
    """The environment for a tool under test: a private HOME and cache, nothing of the
    developer's tfsum, Terraform or pip settings (a PIP_FIND_LINKS, TF_CLI_CONFIG_FILE or
    TFSUM_* set outside must not change what is tested), and no virtualenv on PATH."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("PIP_", "TFSUM_", "TF_", "PRE_COMMIT", "VIRTUAL_ENV", "PYTHON"))
    }
    env["PATH"] = os.pathsep.join(
        p for p in env.get("PATH", "").split(os.pathsep) if Path(p) != TOOLS
    )
    env["HOME"] = str(home)
    env["XDG_CACHE_HOME"] = str(home / ".cache")
    env["TFSUM_CACHE_DIR"] = str(home / "tfsum-cache")
    env["CHECKPOINT_DISABLE"] = "1"
    env.update(extra)
    return env


def package_field(key: str):
    """A field of Cargo.toml's [package], through `key.workspace = true` to
    [workspace.package] where the workspace's crates share it."""
    with open(ROOT / "Cargo.toml", "rb") as f:
        manifest = tomllib.load(f)
    value = manifest["package"][key]
    if isinstance(value, dict) and value.get("workspace"):
        return manifest["workspace"]["package"][key]
    return value


@pytest.fixture(scope="session")
def version() -> str:
    return package_field("version")


@pytest.fixture(scope="session")
def wheel(version) -> Path:
    """The wheel `make wheel` built from this tree."""
    found = sorted((ROOT / "target" / "wheels").glob(f"tfsum-{version}-*.whl"))
    if len(found) != 1:
        pytest.fail(f"expected one tfsum-{version}-*.whl in target/wheels, found {found}: run `make wheel`")
    return found[0]


def packaging_profile() -> str:
    """The cargo profile whose binary these tests package (`make test-packaging` passes
    its PACKAGING_PROFILE; dev there, since the test build made that binary already)."""
    return os.environ.get("TFSUM_PACKAGING_PROFILE", "release")


@pytest.fixture(scope="session")
def built_binary() -> Path:
    """The binary `cargo build --profile PACKAGING_PROFILE` made (the one the wheel carries)."""
    profile = packaging_profile()
    path = ROOT / "target" / ("debug" if profile == "dev" else profile) / "tfsum"
    if not path.exists():
        pytest.fail(f"{path} is missing: run `cargo build --profile {profile}` (make test-packaging does)")
    return path


@pytest.fixture(scope="session")
def wheelhouse(tmp_path_factory, wheel) -> Path:
    """A pip find-links directory standing in for PyPI: the tfsum wheel and the build
    backend of pyproject.toml (downloaded by make into target/packaging/wheelhouse)."""
    house = tmp_path_factory.mktemp("wheelhouse")
    shutil.copy(wheel, house)
    backends = sorted((ROOT / "target" / "packaging" / "wheelhouse").glob("*.whl"))
    if not backends:
        pytest.fail("target/packaging/wheelhouse has no wheels: run `make test-packaging`")
    for w in backends:
        shutil.copy(w, house)
    return house


@pytest.fixture(scope="session")
def terraform_demo_locks(tmp_path_factory) -> dict[str, bytes]:
    """What Terraform 1.0.3 writes for each demo root from the demo mirror: the expected
    output of every tfsum the tests install."""
    terraform = ROOT / "target" / "oracle" / "terraform-1.0.3"
    if not terraform.exists():
        pytest.fail(f"{terraform} is missing: run `make oracle`")
    home = tmp_path_factory.mktemp("terraform-home")
    cli_config = home / "empty.tfrc"
    cli_config.write_text("")
    env = clean_env(home, TF_CLI_CONFIG_FILE=str(cli_config))
    locks = {}
    for root in sorted(p.name for p in (DEMO / "roots").iterdir()):
        work = tmp_path_factory.mktemp(f"terraform-{root}")
        shutil.copytree(DEMO / "roots" / root, work, dirs_exist_ok=True)
        run(
            [terraform, "providers", "lock", "-no-color", f"-fs-mirror={DEMO / 'mirror'}"]
            + [f"-platform={p}" for p in DEMO_PLATFORMS],
            cwd=work,
            env=env,
        )
        locks[root] = (work / ".terraform.lock.hcl").read_bytes()
    return locks


def demo_copy(dest: Path) -> Path:
    """A fresh copy of the demo's root modules, with no lock files."""
    roots = dest / "roots"
    shutil.copytree(DEMO / "roots", roots)
    return roots


def demo_lock_args() -> list[str]:
    """`tfsum lock` arguments that lock the demo offline."""
    args = ["--fs-mirror", str(DEMO / "mirror")]
    for p in DEMO_PLATFORMS:
        args += ["--platform", p]
    return args
