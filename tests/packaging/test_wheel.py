"""The wheel: what `pip install tfsum`, `pipx run tfsum` and `uvx tfsum` give a user who
has Python and no Rust toolchain."""

from __future__ import annotations

import shutil
import sys
import zipfile
from pathlib import Path

import pytest

from conftest import clean_env, demo_copy, demo_lock_args, run, tool

# Directories with no Rust toolchain in them: the user the wheel is for.
SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"


def test_wheel_holds_the_binary_and_metadata_only(wheel, version):
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        metadata = z.read(f"tfsum-{version}.dist-info/METADATA").decode()
    # A binary-only wheel for any Python 3: the tag carries the platform, not a Python ABI.
    assert wheel.name.startswith(f"tfsum-{version}-py3-none-"), wheel.name
    payload = [n for n in names if not n.startswith(f"tfsum-{version}.dist-info/")]
    assert payload == [f"tfsum-{version}.data/scripts/tfsum"]
    for line in ["Name: tfsum", f"Version: {version}", "License-Expression: MPL-2.0"]:
        assert line in metadata.splitlines(), f"{line!r} not in METADATA:\n{metadata}"


def python_without_rust() -> Path:
    """The interpreter the packaging virtualenv was made from, that is, the system's."""
    base = Path(sys._base_executable)  # what this virtualenv was made from
    assert shutil.which("cargo", path=SYSTEM_PATH) is None, "cargo on the system PATH"
    return base


def pip_install(tmp_path: Path, wheel: Path, env: dict[str, str]) -> list[str]:
    venv = tmp_path / "venv"
    run([python_without_rust(), "-m", "venv", venv], env=env)
    run([venv / "bin" / "pip", "install", "--no-index", wheel], env=env)
    return [str(venv / "bin" / "tfsum")]


def pipx_run(tmp_path: Path, wheel: Path, env: dict[str, str]) -> list[str]:
    env["PIPX_HOME"] = str(tmp_path / "pipx")
    env["PIP_NO_INDEX"] = "1"
    return [str(tool("pipx")), "run", "--python", str(python_without_rust()), "--spec", str(wheel), "tfsum"]


def uvx(tmp_path: Path, wheel: Path, env: dict[str, str]) -> list[str]:
    env["UV_CACHE_DIR"] = str(tmp_path / "uv-cache")
    env["UV_TOOL_DIR"] = str(tmp_path / "uv-tools")
    env["UV_PYTHON_DOWNLOADS"] = "never"
    return [str(tool("uvx")), "--offline", "--python", str(python_without_rust()), "--from", str(wheel), "tfsum"]


@pytest.mark.parametrize("installer", [pip_install, pipx_run, uvx], ids=["pip", "pipx-run", "uvx"])
def test_installed_wheel_runs_and_locks_the_demo_as_terraform_does(
    tmp_path, wheel, version, terraform_demo_locks, installer
):
    env = clean_env(tmp_path / "home", PATH=SYSTEM_PATH)
    tfsum = installer(tmp_path, wheel, env)

    out = run(tfsum + ["--version"], env=env)
    assert out.stdout.strip() == f"tfsum {version}"

    roots = demo_copy(tmp_path)
    out = run(tfsum + ["lock", "-r", *demo_lock_args(), roots], cwd=tmp_path, env=env)
    for root, expected in terraform_demo_locks.items():
        assert (roots / root / ".terraform.lock.hcl").read_bytes() == expected, root
    # One line per root (its change lines are indented below it), then the summary.
    root_lines = [line for line in out.stdout.splitlines()[:-1] if not line[:1].isspace()]
    assert sorted(line.split()[0] for line in root_lines) == ["created"] * len(
        terraform_demo_locks
    ), out.stdout
