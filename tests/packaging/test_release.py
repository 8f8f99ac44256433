"""The release assets as a user meets them: the archives scripts/release-archive.sh
packs, SHA256SUMS, scripts/install.sh downloading from a release page (served here on
127.0.0.1), the cargo-binstall metadata, and the check step of action.yml (lock and
verify).

Only this machine's binary exists here, so every target's archive packs it: what is
tested for the other targets is the naming and layout, which the release workflow, the
binstall metadata and install.sh must agree on.
"""

from __future__ import annotations

import hashlib
import http.server
import re
import shutil
import tarfile
import threading
import tomllib
import zipfile
from functools import partial
from pathlib import Path

import pytest
import yaml

from conftest import ROOT, clean_env, demo_copy, demo_lock_args, run

SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"


def release_targets() -> list[str]:
    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "release.yml").read_text())
    return [row["target"] for row in workflow["jobs"]["archives"]["strategy"]["matrix"]["include"]]


@pytest.fixture(scope="module")
def release_page(tmp_path_factory, built_binary, version) -> Path:
    """A copy of a GitHub release page: BASE/download/vVERSION/{archives,SHA256SUMS}."""
    base = tmp_path_factory.mktemp("releases")
    assets = base / "download" / f"v{version}"
    script = ROOT / "scripts" / "release-archive.sh"
    for target in release_targets():
        run([script, "pack", target, built_binary, assets])
    run([script, "sums", assets])
    return base


def binstall_asset(version: str, target: str) -> tuple[str, str]:
    """The archive file name and the binary path in it that cargo binstall looks for."""
    with open(ROOT / "Cargo.toml", "rb") as f:
        meta = tomllib.load(f)["package"]["metadata"]["binstall"]
    meta = meta | meta.get("overrides", {}).get(target, {})
    exe = ".exe" if "-windows-" in target else ""
    values = {"name": "tfsum", "version": version, "target": target, "bin": "tfsum", "binary-ext": exe}
    expand = partial(re.sub, r"\{ ([a-z-]+) \}", lambda m: values[m.group(1)])
    return expand(meta["pkg-url"]).rsplit("/", 1)[1], expand(meta["bin-dir"])


def archive_members(path: Path) -> dict[str, int]:
    """Member name to Unix mode."""
    if path.suffix == ".zip":
        with zipfile.ZipFile(path) as z:
            return {i.filename.rstrip("/"): i.external_attr >> 16 for i in z.infolist()}
    with tarfile.open(path) as t:
        return {m.name: m.mode for m in t.getmembers()}


@pytest.mark.parametrize("target", release_targets())
def test_archive_is_where_binstall_and_install_sh_look(release_page, version, target):
    assets = release_page / "download" / f"v{version}"
    name, binary = binstall_asset(version, target)
    assert (assets / name).is_file(), f"binstall would fetch {name}; the release has {sorted(p.name for p in assets.iterdir())}"
    members = archive_members(assets / name)
    assert binary in members, members
    assert members[binary] & 0o111, f"{binary} is not executable"
    for doc in ("README.md", "CHANGELOG.md"):
        assert f"tfsum-{target}/{doc}" in members


def test_sha256sums_covers_every_archive(release_page, version):
    assets = release_page / "download" / f"v{version}"
    listed = {}
    for line in (assets / "SHA256SUMS").read_text().splitlines():
        digest, name = line.split("  ")
        listed[name] = digest
    archives = sorted(p.name for p in assets.glob("tfsum-*"))
    assert sorted(listed) == archives
    for name in archives:
        assert listed[name] == hashlib.sha256((assets / name).read_bytes()).hexdigest(), name
    run(["sha256sum", "--check", "--strict", "SHA256SUMS"], cwd=assets)


class ReleaseHandler(http.server.SimpleHTTPRequestHandler):
    """Serves the release page; `/latest` redirects to `/tag/vVERSION` as GitHub does."""

    latest = ""

    def do_GET(self):  # noqa: N802 - the http.server API
        if self.path == "/latest":
            self.send_response(302)
            self.send_header("Location", f"/tag/v{self.latest}")
            self.end_headers()
        elif self.path.startswith("/tag/"):
            self.send_response(200)
            self.end_headers()
        else:
            super().do_GET()

    def log_message(self, *args):
        pass


@pytest.fixture
def serve(version):
    """Starts a server for a directory laid out like a release page; returns its URL."""
    servers = []

    def start(directory: Path) -> str:
        handler = type("Handler", (ReleaseHandler,), {"latest": version})
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), partial(handler, directory=str(directory)))
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_port}"

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("requested", ["exact", "latest"])
def test_install_sh_installs_the_checked_archive(tmp_path, release_page, serve, version, requested):
    url = serve(release_page)
    dest = tmp_path / "bin"
    wanted = version if requested == "exact" else "latest"
    env = clean_env(tmp_path / "home", PATH=SYSTEM_PATH)
    out = run(["sh", ROOT / "scripts" / "install.sh", "--version", wanted, "--base-url", url, "--to", dest], env=env)
    assert f"installed tfsum {version}" in out.stderr, out.stderr
    assert run([dest / "tfsum", "--version"], env=env).stdout.strip() == f"tfsum {version}"


def test_install_sh_refuses_an_archive_that_does_not_match_sha256sums(tmp_path, release_page, serve, version):
    tampered = tmp_path / "releases"
    shutil.copytree(release_page, tampered)
    archive = tampered / "download" / f"v{version}" / "tfsum-x86_64-unknown-linux-musl.tar.gz"
    archive.write_bytes(archive.read_bytes() + b"\0")
    dest = tmp_path / "bin"
    env = clean_env(tmp_path / "home", PATH=SYSTEM_PATH)
    out = run(
        ["sh", ROOT / "scripts" / "install.sh", "--version", version, "--base-url", serve(tampered), "--to", dest],
        env=env,
        check=False,
    )
    assert out.returncode != 0
    assert "checksum mismatch for tfsum-x86_64-unknown-linux-musl.tar.gz" in out.stderr, out.stderr
    assert not dest.exists()


def test_action_passes_every_input_to_a_step():
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    used = set(re.findall(r"\binputs\.([a-z-]+)", (ROOT / "action.yml").read_text()))
    assert used == set(action["inputs"])


def test_action_check_step_reports_drift_then_success(tmp_path, built_binary):
    roots = demo_copy(tmp_path)
    summary = tmp_path / "summary.md"
    env = clean_env(
        tmp_path / "home",
        PATH=f"{built_binary.parent}:{SYSTEM_PATH}",
        GITHUB_STEP_SUMMARY=str(summary),
        INPUT_PATHS=f"{roots}\n",
        INPUT_PLATFORMS=",".join(["linux_amd64", "darwin_arm64"]),
        INPUT_ARGS=" ".join(demo_lock_args()[:2]),
    )
    check = ROOT / "scripts" / "action-check.sh"

    missing = run(["bash", check], env=env, check=False)
    assert missing.returncode == 1, missing.stdout + missing.stderr
    text = summary.read_text()
    assert text.startswith("### tfsum lock --check\n\n:x: ")
    for line in missing.stdout.splitlines():
        assert line in text  # the whole report, as in the job log

    run([built_binary, "lock", "-r", *demo_lock_args(), roots], env=env)
    summary.unlink()
    clean = run(["bash", check], env=env)
    assert summary.read_text().startswith("### tfsum lock --check\n\n:white_check_mark: ")
    assert "0 missing, 0 out of date, 2 up to date" in clean.stdout, clean.stdout


def test_action_verify_step_passes_genuine_hashes_and_names_a_planted_one(tmp_path, built_binary):
    roots = demo_copy(tmp_path)
    run([built_binary, "lock", "-r", *demo_lock_args(), roots], env=clean_env(tmp_path / "home"))
    summary = tmp_path / "summary.md"
    env = clean_env(
        tmp_path / "home",
        PATH=f"{built_binary.parent}:{SYSTEM_PATH}",
        GITHUB_STEP_SUMMARY=str(summary),
        INPUT_COMMAND="verify",
        INPUT_PATHS=str(roots),
        INPUT_ARGS=" ".join(demo_lock_args()[:2]),
    )
    check = ROOT / "scripts" / "action-check.sh"

    genuine = run(["bash", check], env=env)
    assert "tfsum verify -r --fs-mirror" in genuine.stderr, genuine.stderr
    assert summary.read_text().startswith("### tfsum verify\n\n:white_check_mark: "), summary.read_text()

    lock = roots / "app" / ".terraform.lock.hcl"
    lines = lock.read_text().splitlines(keepends=True)
    [line] = [i for i, text in enumerate(lines) if '"h1:' in text][:1]
    lines[line] = '    "h1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",\n'
    lock.write_text("".join(lines))
    summary.unlink()
    planted = run(["bash", check], env=env, check=False)
    assert planted.returncode == 1, planted.stdout + planted.stderr
    text = summary.read_text()
    assert text.startswith("### tfsum verify\n\n:x: "), text
    assert f"{lock}:{line + 1}:" in text, text

    # platforms are a lock check's; a typo in command is no silent lock check either.
    for bad in [{"INPUT_PLATFORMS": "linux_amd64"}, {"INPUT_COMMAND": "verfy"}]:
        out = run(["bash", check], env=env | bad, check=False)
        assert out.returncode == 2, out.stdout + out.stderr
        assert out.stderr.startswith("action: "), out.stderr


def test_release_version_check_accepts_only_the_tag_of_cargo_toml_version(version):
    script = ROOT / "scripts" / "release-version.sh"
    assert run([script, f"v{version}"]).stdout.strip() == version
    wrong = run([script, f"v{version}.1"], check=False)
    assert wrong.returncode == 1
    assert f"does not name version {version}" in wrong.stderr
