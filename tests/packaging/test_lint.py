"""Static checks of the release workflow, the GitHub Action, the pull-request workflow
the documentation shows (README.md and docs/), and the shell scripts they run, with the
linters GitHub Actions users rely on."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import ROOT, run, tool

WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
# Uses action.yml by `uses: ./`, so actionlint checks the inputs given to the action
# against the ones action.yml declares.
ACTION_USAGE = ROOT / "tests" / "packaging" / "action-usage.yml"
SCRIPTS = sorted((ROOT / "scripts").glob("*.sh"))
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def documented_workflows(dest: Path) -> list[Path]:
    """The workflows README.md and docs/*.md show (YAML blocks that open with
    `# .github/workflows/`), written to `dest`."""
    blocks = [
        block
        for doc in DOCS
        for block in re.findall(r"```yaml\n(# \.github/workflows/([\w.-]+)\n.*?)```", doc.read_text(), re.S)
    ]
    paths = []
    for text, name in blocks:
        path = dest / name
        path.write_text(text)
        paths.append(path)
    return paths


def test_actionlint_passes_on_the_workflows_and_the_action(tmp_path):
    shown = documented_workflows(tmp_path)
    assert [p.name for p in shown] == ["lock-files.yml"]
    # actionlint runs shellcheck (installed next to it) on each `run:` script.
    run(
        [tool("actionlint"), "-oneline", "-shellcheck", tool("shellcheck"), *WORKFLOWS, ACTION_USAGE, *shown],
        cwd=ROOT,
    )


@pytest.mark.parametrize(
    "schema, path",
    [("vendor.github-actions", ROOT / "action.yml")]
    + [("vendor.github-workflows", w) for w in WORKFLOWS],
    ids=lambda v: v.name if isinstance(v, Path) else v,
)
def test_files_match_github_schemas(schema, path):
    run([tool("check-jsonschema"), "--builtin-schema", schema, path])


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_shellcheck_passes(script):
    run([tool("shellcheck"), "--external-sources", script], cwd=ROOT)


def test_pre_commit_manifest_is_valid():
    run([tool("pre-commit"), "validate-manifest", ROOT / ".pre-commit-hooks.yaml"])
