"""`make demo`, the first command the README gives a new clone: it shows the demo's lock
files, as Terraform writes them, and fails when tfsum fails."""

from __future__ import annotations

from conftest import ROOT, clean_env, run


def make_demo(tmp_path, *overrides: str):
    # CARGO=true: make test-packaging has built the binary already (TFSUM names it).
    env = clean_env(tmp_path / "home")
    for name in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL"):  # from make test-packaging
        env.pop(name, None)
    return run(["make", "--no-print-directory", "demo", "CARGO=true", *overrides], cwd=ROOT, env=env, check=False)


def test_make_demo_prints_each_lock_file_and_how_to_run_tfsum(tmp_path, built_binary, terraform_demo_locks):
    binary = f"./{built_binary.relative_to(ROOT)}"
    out = make_demo(tmp_path, f"TFSUM={binary}")
    assert out.returncode == 0, out.stdout + out.stderr
    for root, lock in terraform_demo_locks.items():
        assert f"==> roots/{root}/.terraform.lock.hcl\n{lock.decode()}" in out.stdout, out.stdout
    assert f"{binary} --help" in out.stdout.splitlines()[-1]


def test_make_demo_fails_when_tfsum_fails(tmp_path):
    out = make_demo(tmp_path, "TFSUM=false")
    assert out.returncode != 0, out.stdout + out.stderr
    assert "tfsum is built" not in out.stdout
