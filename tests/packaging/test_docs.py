"""The YAML blocks of README.md and docs/, checked by the tools that read them (the
other blocks are tests/it/docs.rs's; CONTRIBUTING.md, "Keeping the docs true"):

- a block that opens with `# .pre-commit-config.yaml` is a pre-commit configuration:
  `pre-commit validate-config` accepts it;
- every other block is a GitHub Actions workflow (`# .github/workflows/NAME`) or a list of
  its steps, which is wrapped into a workflow; actionlint (running shellcheck on each
  `run:`) accepts it with this repository's action standing in for `tfsum/tfsum@REF`, so
  the inputs the docs give the action are the ones action.yml declares.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from conftest import ROOT, run, tool

DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
PRE_COMMIT = "# .pre-commit-config.yaml"
WORKFLOW = "# .github/workflows/"
# Inside the repository, so that actionlint finds action.yml for `uses: ./`.
SCRATCH = ROOT / "target" / "packaging" / "docs-workflows"


def yaml_blocks() -> list[tuple[str, str]]:
    """(`FILE:LINE`, text) of every ```yaml block."""
    blocks = []
    for doc in DOCS:
        text = doc.read_text()
        for match in re.finditer(r"^```yaml\n(.*?)^```", text, re.S | re.M):
            line = text.count("\n", 0, match.start()) + 1
            blocks.append((f"{doc.relative_to(ROOT)}:{line}", match.group(1)))
    return blocks


def kind(text: str) -> str:
    if text.startswith(PRE_COMMIT):
        return "pre-commit"
    if text.startswith(WORKFLOW):
        return "workflow"
    first = next((l for l in text.splitlines() if l.strip() and not l.lstrip().startswith("#")), "")
    return "steps" if first.startswith("- ") else "unknown"


def as_workflow(text: str) -> str:
    """A workflow: the block itself, or its steps in one job; the published action
    replaced by this checkout's."""
    if kind(text) == "steps":
        steps = "".join(f"      {line}\n" if line else "\n" for line in text.splitlines())
        text = f"on: push\njobs:\n  docs:\n    runs-on: ubuntu-latest\n    steps:\n{steps}"
    return re.sub(r"uses: tfsum/tfsum@\S+", "uses: ./", text)


def test_every_yaml_block_is_checked():
    blocks = yaml_blocks()
    assert len(blocks) >= 6, blocks
    unknown = [at for at, text in blocks if kind(text) == "unknown"]
    assert not unknown, (
        f"YAML blocks that are neither a pre-commit configuration ({PRE_COMMIT!r} first), "
        f"a workflow ({WORKFLOW!r} first) nor a list of steps: {unknown}"
    )


@pytest.mark.parametrize(
    "at, text",
    [b for b in yaml_blocks() if kind(b[1]) == "pre-commit"],
    ids=lambda v: v if ":" in v and "\n" not in v else "",
)
def test_pre_commit_configuration_is_valid(tmp_path, at, text):
    config = tmp_path / ".pre-commit-config.yaml"
    config.write_text(text)
    run([tool("pre-commit"), "validate-config", config], cwd=tmp_path)


def test_workflows_pass_actionlint():
    blocks = [b for b in yaml_blocks() if kind(b[1]) in ("workflow", "steps")]
    assert len(blocks) >= 4, blocks
    shutil.rmtree(SCRATCH, ignore_errors=True)
    SCRATCH.mkdir(parents=True)
    files = {}
    for i, (at, text) in enumerate(blocks):
        path = SCRATCH / f"block-{i}.yml"
        path.write_text(as_workflow(text))
        files[path.name] = at
    proc = run(
        [tool("actionlint"), "-oneline", "-shellcheck", tool("shellcheck"), *sorted(SCRATCH.glob("*.yml"))],
        cwd=ROOT,
        check=False,
    )
    if proc.returncode != 0:
        report = proc.stdout + proc.stderr
        for name, at in files.items():
            report = report.replace(str(SCRATCH / name), at).replace(
                str((SCRATCH / name).relative_to(ROOT)), at
            )
        pytest.fail(f"actionlint refuses a workflow the docs show:\n{report}")
