"""The hooks of .pre-commit-hooks.yaml, run by the real pre-commit in a scratch
repository, as a user's `.pre-commit-config.yaml` would run them: with `pre-commit run`,
and as the git hook `pre-commit install` sets up, on `git commit`.

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
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

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


@pytest.fixture(params=list(FLAVOURS))
def hooks(request, tmp_path):
    """A scratch project configured with one flavour's lock and check hooks, and the
    environment to run pre-commit and git in: (project, env, lock hook, check hook)."""
    flavour = request.param
    if flavour == "rust" and os.environ.get("TFSUM_TEST_RUST_HOOKS") != "1":
        pytest.skip("builds tfsum with cargo; run `make test-pre-commit-rust`")
    lock_hook, check_hook = FLAVOURS[flavour]
    wheelhouse = request.getfixturevalue("wheelhouse")

    repo = tmp_path / "hooks"
    rev = hook_repo_snapshot(repo)
    project = tmp_path / "project"
    project.mkdir()
    args = [f"--fs-mirror={DEMO / 'mirror'}"] + [f"--platform={p}" for p in DEMO_PLATFORMS]
    (project / ".pre-commit-config.yaml").write_text(
        f"""repos:
  - repo: {repo}
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
    return project, env, lock_hook, check_hook


def test_hook_relocks_only_the_affected_root_and_a_second_run_is_clean(hooks, terraform_demo_locks):
    project, env, lock_hook, check_hook = hooks
    for root in terraform_demo_locks:
        shutil.copytree(DEMO / "roots" / root, project / "envs" / root)
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "roots without lock files")

    def pre_commit(*args: str) -> subprocess.CompletedProcess:
        return run([tool("pre-commit"), "run", *args], cwd=project, env=env, check=False)

    # First run over every file: a lock file for each root, as Terraform writes it. The
    # hook fails naming them (pre-commit itself sees only changes to tracked files) ...
    first = pre_commit(lock_hook, "--all-files")
    assert first.returncode == 1, first.stdout
    for root in terraform_demo_locks:
        assert f"envs/{root}/.terraform.lock.hcl" in first.stdout, first.stdout
    assert lock_files(project) == {
        f"envs/{root}/.terraform.lock.hcl": lock for root, lock in terraform_demo_locks.items()
    }
    # ... and passes once they are staged.
    git(project, "add", "-A")
    again = pre_commit(lock_hook, "--all-files")
    assert again.returncode == 0, again.stdout
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
    assert "envs/app/.terraform.lock.hcl" in second.stdout, second.stdout
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


def test_commit_that_creates_a_lock_file_fails_until_it_is_staged(hooks, terraform_demo_locks):
    """`git commit` with the hooks installed: a new root's new lock file (untracked, so
    invisible to pre-commit's own check) fails the commit, named; staged, it passes. A new
    test file under a root's tests/ selects that root the same way."""
    project, env, _, _ = hooks
    (project / "README.md").write_text("scratch\n")
    # A module only a test will call (committed before the hooks are installed).
    helper = project / "modules" / "null-helper" / "main.tf"
    helper.parent.mkdir(parents=True)
    helper.write_text('terraform {\n  required_providers {\n    null = { source = "hashicorp/null" }\n  }\n}\n')
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "start")
    run([tool("pre-commit"), "install"], cwd=project, env=env)

    def commit(message: str) -> subprocess.CompletedProcess:
        return run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-m", message],
            cwd=project,
            env=env,
            check=False,
        )

    def commits() -> int:
        return int(git(project, "rev-list", "--count", "HEAD").strip())

    shutil.copytree(DEMO / "roots" / "app", project / "envs" / "app")
    git(project, "add", "envs/app/main.tf")
    refused = commit("a new root")
    output = refused.stdout + refused.stderr
    assert refused.returncode != 0, output
    assert commits() == 1
    assert "envs/app/.terraform.lock.hcl" in output, output
    lock = project / "envs" / "app" / ".terraform.lock.hcl"
    assert lock.read_bytes() == terraform_demo_locks["app"]

    git(project, "add", "envs/app/.terraform.lock.hcl")
    accepted = commit("a new root, with its lock file")
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr
    assert commits() == 2
    assert git(project, "show", "--name-only", "--format=", "HEAD").split() == [
        "envs/app/.terraform.lock.hcl",
        "envs/app/main.tf",
    ]

    # A test file in the root's tests/, the only staged file, whose run block calls the
    # module that needs null: it selects the root, whose lock file gains null.
    assert "hashicorp/null" not in lock.read_text()
    test = project / "envs" / "app" / "tests" / "setup.tftest.hcl"
    test.parent.mkdir()
    test.write_text('run "setup" {\n  module {\n    source = "../../modules/null-helper"\n  }\n}\n')
    git(project, "add", "envs/app/tests/setup.tftest.hcl")
    refused = commit("a test that needs null")
    output = refused.stdout + refused.stderr
    assert refused.returncode != 0, output
    assert "envs/app/.terraform.lock.hcl" in output, output
    assert 'provider "registry.terraform.io/hashicorp/null"' in lock.read_text()
    git(project, "add", "envs/app/.terraform.lock.hcl")
    accepted = commit("a test that needs null, with the lock file")
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr
    assert commits() == 3


def test_documented_local_hook_runs_what_the_published_lock_hooks_run():
    published = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    lock_hooks = [h for h in published if h["id"] in ("tfsum-lock", "tfsum-lock-pypi")]
    assert {h["entry"] for h in lock_hooks} == {"tfsum lock --fail-on-write"}
    assert {h["files"] for h in published} == {lock_hooks[0]["files"]}
    page = (ROOT / "docs" / "pre-commit.md").read_text()
    [block] = re.findall(r"```yaml\n(# \.pre-commit-config\.yaml\nrepos:\n  - repo: local\n.*?)```", page, re.S)
    [local] = yaml.safe_load(block)["repos"][0]["hooks"]
    assert local["entry"] == lock_hooks[0]["entry"]
    assert local["files"] == lock_hooks[0]["files"]
