"""README's "Write your first challenge" and docs/hard-challenge.md, run step by step as written.

The steps are the page's fenced blocks marked `<!-- walk-through: run -->` (shell commands, one
per line) and `<!-- walk-through: file PATH -->` (a file's whole text), in order; they run in an
empty folder, so a walk-through cannot drift from what chgen does."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import List, Tuple

import pytest

from tests.conftest import ROOT

STEP_RE = re.compile(r"<!-- walk-through: (run|file ([^ ]+)) -->\n```[a-z]*\n(.*?)```", re.DOTALL)


def walkthrough_steps(readme: str) -> List[Tuple[str, str, str]]:
    """(kind, path, text) for each marked block: kind is "run" or "file"."""
    return [
        ("run" if kind == "run" else "file", path, text)
        for kind, path, text in STEP_RE.findall(readme)
    ]


def test_the_readme_marks_a_complete_walkthrough():
    steps = walkthrough_steps((ROOT / "README.md").read_text(encoding="utf-8"))
    commands = [line.split()[:2] for kind, _, text in steps if kind == "run" for line in
                text.splitlines() if line.strip()]  # fmt: skip
    assert [c[1] for c in commands] == ["new", "generate", "check", "judge"]
    assert [path for kind, path, _ in steps if kind == "file"] == [
        "specs/1_leaky_relu_backward.yaml",
        "leaky_relu_backward.pytorch.py",
    ]


def run_walkthrough(page: str, folder: Path) -> List[str]:
    """Every step of `page` in `folder`, in order; the output of each command run."""
    env = dict(os.environ)
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    outputs = []
    for kind, path, text in walkthrough_steps(page):
        if kind == "file":
            target = folder / path
            assert target.resolve().is_relative_to(folder.resolve()), path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
            continue
        for line in filter(str.strip, text.splitlines()):
            argv = shlex.split(line)
            assert argv[0] == "chgen", line  # the walk-through runs chgen and nothing else
            done = subprocess.run(
                argv, cwd=folder, env=env, capture_output=True, text=True, timeout=600
            )
            output = done.stdout + done.stderr
            assert done.returncode == 0, f"{line}\n{output}"
            assert "Traceback" not in output, f"{line}\n{output}"
            outputs.append(output)
    return outputs


def test_the_walkthrough_runs_as_written(tmp_path: Path):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    outputs = run_walkthrough(readme, tmp_path)
    assert "0 error(s)" in outputs[2], outputs[2]  # chgen check: no error
    said = re.search(r"`(pass: the example test and \d+ functional case\(s\) passed)`", readme)
    assert said and said.group(1) in outputs[-1], outputs[-1]


HARD = ROOT / "docs" / "hard-challenge.md"


def test_the_hard_walkthrough_is_complete_and_linked():
    steps = walkthrough_steps(HARD.read_text(encoding="utf-8"))
    commands = [line.split()[:2] for kind, _, text in steps if kind == "run" for line in
                text.splitlines() if line.strip()]  # fmt: skip
    assert [c[1] for c in commands] == ["new", "generate", "check", "test"]
    assert [path for kind, path, _ in steps if kind == "file"] == [
        "specs/1_multi_head_causal_attention.yaml",
        "solutions/1_multi_head_causal_attention/naive/solution.pytorch.py",
    ]
    spec = steps[1][2]
    for needle in ("[N, H * D]", "reference_helpers:", "shown: [H, D, scale]", "oracle:"):
        assert needle in spec, needle
    assert "mutants:" in spec and spec.count("scalars: {N: 2,") == 2
    assert "(docs/hard-challenge.md)" in (ROOT / "README.md").read_text(encoding="utf-8")


@pytest.mark.slow  # chgen test builds every starter with its real toolchain
def test_the_hard_walkthrough_runs_as_written(tmp_path: Path):
    page = HARD.read_text(encoding="utf-8")
    outputs = run_walkthrough(page, tmp_path)
    assert "0 error(s)" in outputs[2], outputs[2]
    html = next(tmp_path.glob("generated/challenges/hard/*/challenge.html")).read_text()
    for line in re.search(r"section ends in (`[^`]*`),\s+(`[^`]*`),\s+(`[^`]*`):", page).groups():
        assert line.strip("`") in html.splitlines(), line
    for said in ("caught 6/7 functional", "8/8", "the example test and 7 functional case(s)"):
        assert said in " ".join(page.split()), said
    tested = " ".join(outputs[-1].split())
    assert "caught 6/7 functional" in tested and "8/8" in tested, outputs[-1]


def test_the_docs_state_the_bounds_and_hooks_the_code_has():
    """The spec page's bounds are the model's (its descriptions are written by hand), and every
    hook of .pre-commit-hooks.yaml is in the command page's hook table."""
    import yaml

    from generator.spec.model import Spec

    spec_page = (ROOT / "docs" / "spec.md").read_text(encoding="utf-8")
    commands = (ROOT / "docs" / "commands.md").read_text(encoding="utf-8")

    def bounds(field: str) -> str:
        found = {type(m).__name__: m for m in Spec.model_fields[field].metadata}
        return f"{found['Ge'].ge} to {found['Le'].le}"

    assert f"| `id` | required | the challenge number, {bounds('id')}," in spec_page
    assert f"| `num_gpus` | `1` | {bounds('num_gpus')};" in spec_page
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    for hook in hooks:
        assert f"| `{hook['id']}` | `{hook['entry']}`" in commands, hook["id"]


def test_the_readme_is_a_newcomers_page_that_links_the_rest():
    """At most 200 lines; every page it links exists, and the fresh-machine commands are .ci's."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 200
    for target in re.findall(r"\]\((docs/[^)#]+)", readme):
        assert (ROOT / target).is_file(), target
    assert "make test       # set up everything" in readme
    assert "exec make test" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")
