"""Formatter rules: the files are what black/isort, flake8, clang-format and mblack would leave.

The formatters are the project's own (generator/formatting.py, same versions and style as the
generator). F005 (whitespace) is cheap and runs in the static tier; the rest run with --formatters.
flake8 and clang-format each run once over all files, not once per file.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Callable, Dict, List, Sequence, Tuple

from generator import formatting
from generator.checks.report import Report
from generator.checks.source import ChallengeDir, SourceFile
from generator.languages import LANGUAGES

#: the public set's flake8 settings (black-compatible; starters import modules they do not use)
FLAKE8_ARGS = ("--max-line-length=100", "--extend-ignore=E203,W503,F401")
FLAKE8_CONFIGS = (".flake8", "setup.cfg", "tox.ini")
TEXT_FILES = ("challenge.py", "challenge.html") + tuple(
    f"starter/{lang.starter_name}" for lang in LANGUAGES
)


def _files(ch: ChallengeDir) -> List[SourceFile]:
    return [f for f in (ch.file(name) for name in TEXT_FILES) if f is not None]


def check_whitespace(ch: ChallengeDir, report: Report) -> None:
    for source in _files(ch):
        text = source.text
        if not text:
            continue
        trailing = [i for i, line in enumerate(text.split("\n"), 1) if line != line.rstrip()]
        if trailing:
            more = f" (and {len(trailing) - 1} more lines)" if len(trailing) > 1 else ""
            line = trailing[0]
            col = len(source.lines[line - 1].rstrip()) + 1
            report.add("F005", source.display, line, col, f"trailing whitespace{more}")
        if not text.endswith("\n"):
            line, col = source.position(len(text))
            report.add("F005", source.display, line, col, "no newline at the end of the file")
        elif text.endswith("\n\n"):
            line, _ = source.position(len(text.rstrip("\n")) + 1)
            report.add("F005", source.display, line + 1, 1, "blank lines at the end of the file")


def first_difference(old: str, new: str) -> int:
    a, b = old.split("\n"), new.split("\n")
    for i, (x, y) in enumerate(zip(a, b), 1):
        if x != y:
            return i
    return min(len(a), len(b))


def _compare(
    source: SourceFile, code: str, formatter: Callable[[str, str], str], what: str, report: Report
) -> None:
    try:
        formatted = formatter(source.text, source.display)
    except formatting.FormatError as exc:
        report.add(code, source.display, 1, 1, f"{what} cannot format the file: {exc}")
        return
    if formatted != source.text:
        line = first_difference(source.text, formatted)
        report.add(code, source.display, line, 1, f"{what} would change this file (line {line})")


def check(challenges: Sequence[ChallengeDir], report: Report) -> None:
    python: List[Tuple[ChallengeDir, SourceFile]] = []
    cuda: List[SourceFile] = []
    for ch in challenges:
        for source in _files(ch):
            name = source.path.name
            if name.endswith(".py"):
                python.append((ch, source))
            elif name.endswith(".cu"):
                cuda.append(source)
            elif name.endswith(".mojo") and report.wants("F004"):
                _compare(source, "F004", formatting.mojo_format, "mojo format", report)
    if report.wants("F001"):
        for _, source in python:
            _compare(source, "F001", formatting.python_format, "black/isort", report)
    if report.wants("F002") and python:
        _flake8(python, report)
    if report.wants("F003") and cuda:
        _clang_format(cuda, report)


def _flake8(files: List[Tuple[ChallengeDir, SourceFile]], report: Report) -> None:
    groups: Dict[Path, List[SourceFile]] = {}
    for ch, source in files:
        root = ch.tree.root if ch.tree is not None else ch.path
        groups.setdefault(root.resolve(), []).append(source)
    pattern = re.compile(r"^(.*?)::(\d+)::(\d+)::(\w+)::(.*)$")
    for root, sources in groups.items():
        own_config = any((root / name).is_file() for name in FLAKE8_CONFIGS)
        args = [] if own_config else list(FLAKE8_ARGS)
        by_path = {str(s.path.resolve()): s for s in sources}
        command = [sys.executable, "-m", "flake8", *args]
        command += ["--format=%(path)s::%(row)d::%(col)d::%(code)s::%(text)s", *by_path]
        try:
            result = subprocess.run(
                command, cwd=root, capture_output=True, text=True, timeout=300, check=False
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            report.add("F002", str(root), 1, 1, f"flake8 could not run: {exc}", "install flake8")
            continue
        if result.returncode not in (0, 1):
            message = (result.stderr.strip().splitlines() or ["unknown error"])[-1]
            report.add("F002", str(root), 1, 1, f"flake8 failed: {message}", "install flake8")
            continue
        for line in result.stdout.splitlines():
            match = pattern.match(line)
            if not match:
                continue
            path = str((root / match.group(1)).resolve())
            source = by_path.get(path)
            if source is None:
                continue
            report.add(
                "F002",
                source.display,
                int(match.group(2)),
                int(match.group(3)),
                f"{match.group(4)} {match.group(5)}",
            )


def _clang_format(files: List[SourceFile], report: Report) -> None:
    try:
        binary = formatting.clang_format_binary()
    except formatting.FormatError as exc:
        report.add("F003", files[0].display, 1, 1, str(exc), "")
        return
    by_path = {str(s.path.resolve()): s for s in files}
    command = [binary, f"--style={formatting.CLANG_FORMAT_STYLE}", "--dry-run", *by_path]
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        report.add("F003", files[0].display, 1, 1, f"clang-format could not run: {exc}", "")
        return
    pattern = re.compile(r"^(.*?):(\d+):(\d+): (?:warning|error): (.*)$")
    reported = set()
    for line in result.stderr.splitlines():
        match = pattern.match(line)
        if not match:
            continue
        source = by_path.get(str(Path(match.group(1)).resolve()))
        if source is None or source.display in reported:
            continue
        reported.add(source.display)
        report.add(
            "F003",
            source.display,
            int(match.group(2)),
            int(match.group(3)),
            "clang-format would change this file",
        )
