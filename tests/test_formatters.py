"""Running the public set's formatters over everything chgen generates changes nothing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from generator.formatting import CLANG_FORMAT_STYLE, clang_format_binary
from tests.conftest import GOLDEN, ROOT

TREES = [ROOT / "generated", GOLDEN / "tree"]
BIN = Path(sys.executable).parent


def files(*suffixes: str) -> list:
    found = [p for tree in TREES for p in tree.rglob("*") if p.name.endswith(suffixes)]
    assert found, f"no {suffixes} files generated"
    return sorted(found)


def run(*cmd) -> subprocess.CompletedProcess:
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True, cwd=ROOT)


def test_black_is_clean():
    result = run(BIN / "black", "--check", "--line-length", "100", *files(".py"))
    assert result.returncode == 0, result.stderr


def test_isort_is_clean():
    result = run(BIN / "isort", "--check-only", "--profile", "black", "--line-length", "100",
                 *files(".py"))  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr


def test_flake8_is_clean():
    result = run(BIN / "flake8", *files(".py"))
    assert result.returncode == 0, result.stdout


def test_clang_format_is_clean():
    result = run(clang_format_binary(), f"--style={CLANG_FORMAT_STYLE}", "--dry-run", "--Werror",
                 *files(".cu"))  # fmt: skip
    assert result.returncode == 0, result.stderr


@pytest.mark.slow
def test_mojo_format_is_clean():
    result = run(BIN / "mblack", "--check", "--line-length", "100", *files(".mojo"))
    assert result.returncode == 0, result.stderr


def test_text_files_end_with_one_newline_and_no_trailing_space():
    for path in files(".py", ".cu", ".mojo", ".html"):
        text = path.read_text()
        assert text.endswith("\n") and not text.endswith("\n\n"), path
        assert not any(line != line.rstrip() for line in text.splitlines()), path
