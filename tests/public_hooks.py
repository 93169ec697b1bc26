"""The public challenge set's pre-commit hooks, run as its `.pre-commit-config.yaml` runs them.

black 24.1.1 `--line-length=100`, isort 5.13.2 `--profile=black --line-length=100`, flake8 7.0.0
`--max-line-length=100` with flake8-bugbear, clang-format 18.1.8 on `.cu/.cpp/.h`, `mojo format
-q`, and pre-commit-hooks' trailing-whitespace and end-of-file-fixer: the same tools at the same
pins with the same arguments, called directly (pre-commit itself would clone each hook's
repository, which needs the network). Each tool runs from the tree's root, so that it reads the
tree's own settings (`.flake8`, `.clang-format`, `[tool.black]` and `[tool.isort]` in
pyproject.toml) as it does there; `write_public_settings` writes those settings, as the set has
them, into a tree of our own. A hook that would rewrite a file (black, isort, clang-format, mojo
format, the two fixers) fails it without touching it. Shared by tests/test_public_hooks.py and
benchmarks/public_set.py.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Dict, List, Sequence

from generator.checks.formatters import FLAKE8_ARGS
from generator.formatting import CLANG_FORMAT_STYLE, LINE_LENGTH, clang_format_binary
from generator.toolchain.tools import MOJO_ENV, executable

#: the pins of the set's .pre-commit-config.yaml (flake8-bugbear is unpinned there)
PINS = {"black": "24.1.1", "isort": "5.13.2", "flake8": "7.0.0", "clang-format": "18.1.8"}
HOOKS = (
    "black",
    "isort",
    "flake8",
    "clang-format",
    "mojo-format",
    "trailing-whitespace",
    "end-of-file-fixer",
)
_PYTHON = (".py",)
_CUDA = (".cu", ".cpp", ".h")
_MOJO = (".mojo",)


@dataclass
class Failure:
    hook: str
    path: str  # relative to the tree's root
    message: str


def missing_tools() -> List[str]:
    """The hooks' tools that are absent or at another version than the set pins."""
    wrong = []
    for package, version in PINS.items():
        try:
            found = metadata.version(package)
        except metadata.PackageNotFoundError:
            found = None
        if found != version:
            wrong.append(f"{package}=={version} (found {found or 'none'})")
    try:
        metadata.version("flake8-bugbear")
    except metadata.PackageNotFoundError:
        wrong.append("flake8-bugbear")
    if executable("mojo") is None:
        wrong.append("mojo")
    return wrong


def write_public_settings(root: Path) -> None:
    """The set's tool settings: flake8's, clang-format's style, black's and isort's."""
    ignores = next(a for a in FLAKE8_ARGS if a.startswith("--extend-ignore="))
    ignored = ignores.split("=", 1)[1].replace(",", ", ")
    (root / ".flake8").write_text(
        f"[flake8]\nmax-line-length = {LINE_LENGTH}\nextend-ignore = {ignored}\n"
    )
    (root / ".clang-format").write_text(CLANG_FORMAT_STYLE + "\n")
    (root / "pyproject.toml").write_text(
        f"[tool.black]\nline-length = {LINE_LENGTH}\n\n"
        f'[tool.isort]\nprofile = "black"\nline_length = {LINE_LENGTH}\n'
    )


def _run(command: Sequence[str], root: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(c) for c in command],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=900,
    )


def _tool(name: str) -> List[str]:
    return [sys.executable, "-m", name]


def _rewrites(
    hook: str, command: Sequence[str], root: Path, files: List[str], env: Dict[str, str]
) -> List[Failure]:
    """Files a rewriting hook changes: it runs on copies (same names, same settings beside
    them), which are then compared with the originals."""
    failures = []
    with tempfile.TemporaryDirectory(prefix="chgen-hooks-") as scratch:
        copy = Path(scratch)
        for name in (".flake8", ".clang-format", "pyproject.toml"):
            if (root / name).is_file():
                shutil.copy2(root / name, copy / name)
        for name in files:
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(root / name, copy / name)
        done = subprocess.run(
            [*command, *files], cwd=copy, capture_output=True, text=True, timeout=900, env=env
        )
        for name in files:
            if (copy / name).read_bytes() != (root / name).read_bytes():
                failures.append(Failure(hook, name, "the hook rewrites this file"))
        if done.returncode != 0 and not failures:
            message = done.stderr.strip() or done.stdout.strip() or f"exit {done.returncode}"
            failures.append(Failure(hook, files[0], message.splitlines()[-1]))
    return failures


def _whitespace(root: Path, files: List[str]) -> List[Failure]:
    """pre-commit-hooks v4.5.0: trailing-whitespace (not on .md) strips the whitespace at the end
    of every line; end-of-file-fixer leaves a non-empty file ending in exactly one newline."""
    failures = []
    for name in files:
        if name.endswith(".md"):
            continue
        data = (root / name).read_bytes()
        lines = data.split(b"\n")
        if any(line.rstrip(b"\r") != line.rstrip() for line in lines):
            failures.append(Failure("trailing-whitespace", name, "trailing whitespace"))
        if data and (not data.endswith(b"\n") or data.endswith(b"\n\n")):
            failures.append(Failure("end-of-file-fixer", name, "not exactly one final newline"))
    return failures


def run_hooks(root: Path, files: Sequence[Path]) -> List[Failure]:
    """Every hook of the set on `files` (paths under `root`); each failure once per hook and
    file. `root` holds the settings the tools read (see write_public_settings)."""
    relative = sorted(str(Path(f).resolve().relative_to(root.resolve())) for f in files)
    python = [f for f in relative if f.endswith(_PYTHON)]
    cuda = [f for f in relative if f.endswith(_CUDA)]
    mojo = [f for f in relative if f.endswith(_MOJO)]
    env = dict(os.environ)
    failures: List[Failure] = []
    if python:
        black = [*_tool("black"), f"--line-length={LINE_LENGTH}", "-q"]
        failures += _rewrites("black", black, root, python, env)
        isort = [*_tool("isort"), "--profile=black", f"--line-length={LINE_LENGTH}", "-q"]
        failures += _rewrites("isort", isort, root, python, env)
        done = _run([*_tool("flake8"), f"--max-line-length={LINE_LENGTH}", *python], root)
        for line in done.stdout.splitlines():
            path, _, message = line.partition(":")
            failures.append(Failure("flake8", path.removeprefix("./"), message))
        if done.returncode not in (0, 1):
            failures.append(Failure("flake8", python[0], done.stderr.strip()[-300:]))
    if cuda:
        failures += _rewrites("clang-format", [clang_format_binary(), "-i"], root, cuda, env)
    if mojo:
        command = [executable("mojo") or "mojo", "format", "-q"]
        failures += _rewrites("mojo-format", command, root, mojo, {**env, **MOJO_ENV})
    failures += _whitespace(root, relative)
    return failures
