"""Throwaway git repositories for trying this repository's exported pre-commit hooks.

`pre-commit try-repo` clones a repository at a commit, so the working tree (committed or not) is
committed into a scratch copy first. The repository that uses the hooks is a tiny tree in the
LeetGPU layout, made from one of our own generated challenges. Shared by tests/test_hooks.py and
benchmarks/hook_install.py.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Dict, List

ROOT = Path(__file__).resolve().parent.parent
CHALLENGE = "challenges/medium/143_row_inverse_rms"
#: the line `import torch` of that challenge.py; a planted `import os` above it breaks rule P010
PLANTED_LINE = 4

_AUTHOR = {
    "GIT_AUTHOR_NAME": "chgen tests",
    "GIT_AUTHOR_EMAIL": "tests@example.invalid",
    "GIT_COMMITTER_NAME": "chgen tests",
    "GIT_COMMITTER_EMAIL": "tests@example.invalid",
}


def git(repo: Path, *args: str) -> str:
    result = subprocess.run(
        ["git", "-c", "commit.gpgsign=false", "-c", "core.hooksPath=/dev/null", *args],
        cwd=repo,
        env={**os.environ, **_AUTHOR},
        capture_output=True,
        text=True,
    )
    if result.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)} failed in {repo}: {result.stderr.strip()}")
    return result.stdout


def _commit_all(repo: Path, message: str) -> str:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD").strip()


def working_tree_copy(target: Path) -> Path:
    """This checkout's tracked and not-ignored files (what would be committed), nothing built."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    return target


def committed_copy(target: Path) -> str:
    """The working tree, committed into a new repository at `target`; returns the commit."""
    working_tree_copy(target)
    git(target, "init", "-q")
    return _commit_all(target, "chgen working tree")


def challenge_set(target: Path) -> Path:
    """A repository in the LeetGPU layout: challenges/core/challenge_base.py and one challenge."""
    for relative in ("challenges/core", CHALLENGE):
        shutil.copytree(
            ROOT / "generated" / relative,
            target / relative,
            ignore=shutil.ignore_patterns("__pycache__"),
        )
    git(target, "init", "-q")
    _commit_all(target, "one challenge")
    return target


def plant_violation(challenge_repo: Path) -> str:
    """Commit an `import os` into the challenge (rule P010); returns the expected location."""
    path = challenge_repo / CHALLENGE / "challenge.py"
    lines = path.read_text().splitlines(keepends=True)
    if lines[PLANTED_LINE - 1] != "import torch\n":
        raise RuntimeError(f"{path}: line {PLANTED_LINE} is not `import torch`")
    lines.insert(PLANTED_LINE - 1, "import os\n")
    path.write_text("".join(lines))
    _commit_all(challenge_repo, "import os")
    return f"{CHALLENGE}/challenge.py:{PLANTED_LINE}:1: P010"


def try_repo(
    challenge_repo: Path, hooks_repo: Path, rev: str, hook: str, pre_commit_home: Path
) -> subprocess.CompletedProcess:
    """`pre-commit try-repo HOOKS_REPO HOOK --ref REV --all-files` inside the challenge repo."""
    env: Dict[str, str] = {**os.environ, "PRE_COMMIT_HOME": str(pre_commit_home)}
    env.pop("PYTHONPATH", None)
    env.pop("VIRTUAL_ENV", None)
    command: List[str] = [sys.executable, "-m", "pre_commit", "try-repo", str(hooks_repo), hook]
    command += ["--ref", rev, "--all-files", "--color", "never"]
    return subprocess.run(
        command, cwd=challenge_repo, env=env, capture_output=True, text=True, timeout=900
    )
