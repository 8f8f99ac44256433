"""The hooks of .pre-commit-hooks.yaml, run by the real pre-commit in a scratch
repository, as a user's `.pre-commit-config.yaml` would run them.

The hook repository is a snapshot of this working tree (committed or not, as
`pre-commit try-repo` takes it). The `*-pypi` hooks install pyproject.toml, whose `tfsum`
dependency pip takes from a local wheelhouse standing in for PyPI (PIP_NO_INDEX): the
wheel built from this tree. Providers come from the demo's filesystem mirror through the
hook's `args:`, which `try-repo` cannot pass; that is why the test writes a config.

The `language: rust` hooks build tfsum with cargo, minutes on this machine, so they run
only with TFSUM_TEST_RUST_HOOKS=1 (`make test-pre-commit-rust`).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import DEMO, DEMO_PLATFORMS, ROOT, clean_env, run, tool

SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"

FLAVOURS = {
    "pypi": ("tfsum-lock-pypi", "tfsum-lock-check-pypi"),
    "rust": ("tfsum-lock", "tfsum-lock-check"),
}


def git(cwd: Path, *args: str, env=None) -> str:
    return run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args], cwd=cwd, env=env).stdout


def hook_repo_snapshot(dest: Path) -> str:
    """Commits the working tree's tracked and new files into a fresh repository at
    `dest`; returns the commit to use as `rev:`."""
    files = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT, check=True, capture_output=True,
    ).stdout.split(b"\0")
    for name in filter(None, files):
        src = ROOT / os.fsdecode(name)
        if src.is_file():  # deleted but not yet staged files are listed too
            (dest / src.relative_to(ROOT)).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / src.relative_to(ROOT), follow_symlinks=False)
    git(dest, "init", "-q")
    git(dest, "add", "-A")
    git(dest, "commit", "-q", "-m", "snapshot")
    return git(dest, "rev-parse", "HEAD").strip()


def lock_files(project: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(project)): p.read_bytes()
        for p in sorted(project.glob("envs/*/.terraform.lock.hcl"))
    }


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_hook_relocks_only_the_affected_root_and_a_second_run_is_clean(
    tmp_path, flavour, wheelhouse, terraform_demo_locks
):
    if flavour == "rust" and os.environ.get("TFSUM_TEST_RUST_HOOKS") != "1":
        pytest.skip("builds tfsum with cargo; run `make test-pre-commit-rust`")
    lock_hook, check_hook = FLAVOURS[flavour]

    hooks = tmp_path / "hooks"
    rev = hook_repo_snapshot(hooks)
    project = tmp_path / "project"
    for root in terraform_demo_locks:
        shutil.copytree(DEMO / "roots" / root, project / "envs" / root)
    args = [f"--fs-mirror={DEMO / 'mirror'}"] + [f"--platform={p}" for p in DEMO_PLATFORMS]
    (project / ".pre-commit-config.yaml").write_text(
        f"""repos:
  - repo: {hooks}
    rev: {rev}
    hooks:
      - id: {lock_hook}
        args: {args}
      - id: {check_hook}
        args: {args}
"""
    )
    env = clean_env(
        tmp_path / "home",
        PATH=SYSTEM_PATH,
        PRE_COMMIT_HOME=str(tmp_path / "pre-commit-home"),
        PIP_NO_INDEX="1",
        PIP_FIND_LINKS=str(wheelhouse),
    )
    if flavour == "rust":
        env["PATH"] = f"{Path.home() / '.cargo' / 'bin'}:{SYSTEM_PATH}"
        env["CARGO_HOME"] = os.environ.get("CARGO_HOME", str(Path.home() / ".cargo"))
        env["RUSTUP_HOME"] = os.environ.get("RUSTUP_HOME", str(Path.home() / ".rustup"))
        env["CARGO_TARGET_DIR"] = str(ROOT / "target" / "packaging" / "cargo-install")
    git(project, "init", "-q")
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "roots without lock files")

    def pre_commit(*args: str) -> subprocess.CompletedProcess:
        return run([tool("pre-commit"), "run", *args], cwd=project, env=env, check=False)

    # First run over every file: a lock file for each root, as Terraform writes it.
    # (pre-commit fails a hook that changes tracked files; new files are left to `git add`.)
    first = pre_commit(lock_hook, "--all-files")
    assert first.returncode == 0, first.stdout
    assert lock_files(project) == {
        f"envs/{root}/.terraform.lock.hcl": lock for root, lock in terraform_demo_locks.items()
    }
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "lock files")
    assert pre_commit(check_hook, "--all-files").returncode == 0

    # A constraint changes in one root: the check hook fails and writes nothing ...
    main_tf = project / "envs" / "app" / "main.tf"
    main_tf.write_text(main_tf.read_text().replace('">= 3.5.0"', '">= 3.6.0"'))
    git(project, "add", "envs/app/main.tf")
    before = lock_files(project)
    check = pre_commit(check_hook)
    assert check.returncode == 1, check.stdout
    assert "would update envs/app" in check.stdout, check.stdout
    assert lock_files(project) == before

    # ... the lock hook, given only the staged main.tf, rewrites that root's lock alone ...
    second = pre_commit(lock_hook)
    assert second.returncode == 1, second.stdout
    assert "files were modified by this hook" in second.stdout, second.stdout
    after = lock_files(project)
    assert [name for name in after if after[name] != before[name]] == ["envs/app/.terraform.lock.hcl"]
    assert 'constraints = ">= 3.6.0"' in after["envs/app/.terraform.lock.hcl"].decode()
    assert sorted(git(project, "status", "--porcelain").splitlines()) == [
        " M envs/app/.terraform.lock.hcl",
        "M  envs/app/main.tf",
    ]

    # ... and once that is staged, both hooks pass and change nothing.
    git(project, "add", "-A")
    for hook in (lock_hook, check_hook):
        again = pre_commit(hook)
        assert again.returncode == 0, again.stdout
    assert lock_files(project) == after
    assert sorted(git(project, "status", "--porcelain").splitlines()) == [
        "M  envs/app/.terraform.lock.hcl",
        "M  envs/app/main.tf",
    ]
