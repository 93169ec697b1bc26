"""The base install's commands import nothing optional; a missing extra is one line."""

from __future__ import annotations

import importlib.metadata
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from generator import __version__, extras
from generator.cli import app
from tests.conftest import ROOT

#: what only the extras bring (import names); the static check and `chgen new` must not need them
OPTIONAL_MODULES = (
    "torch numpy black isort mblack clang_format pygments triton jax cutlass flake8".split()
)

BLOCKER = textwrap.dedent(
    f"""
    import sys

    BLOCKED = {set(OPTIONAL_MODULES)!r}


    class Block:
        def find_spec(self, name, path=None, target=None):
            if name.partition(".")[0] in BLOCKED:
                raise ModuleNotFoundError(f"No module named {{name!r}} (blocked)", name=name)
            return None


    sys.meta_path.insert(0, Block())
    sys.argv = ["chgen", *sys.argv[1:]]
    from generator.cli import main

    main()
    """
)


def run_blocked(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    """`chgen ARGS` in a process where every optional module fails to import."""
    script = tmp_path / "blocked_chgen.py"
    script.write_text(BLOCKER)
    return subprocess.run(
        [sys.executable, str(script), *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_static_check_and_new_need_no_optional_module(tmp_path: Path):
    shutil.copytree(ROOT / "generated", tmp_path / "tree")
    clean = run_blocked(tmp_path, "check", "tree")
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert "0 error(s)" in clean.stdout

    challenge = tmp_path / "tree/challenges/medium/143_row_inverse_rms/challenge.py"
    challenge.write_text(
        challenge.read_text().replace("import torch\n", "import os\nimport torch\n")
    )
    planted = run_blocked(tmp_path, "check", "--jobs", "2", "tree")
    assert planted.returncode == 1, planted.stdout + planted.stderr
    assert "143_row_inverse_rms/challenge.py:4:1: P010 import of 'os'" in planted.stdout

    new = run_blocked(tmp_path, "new", "leaky_relu", "-d", "easy")
    assert new.returncode == 0, new.stdout + new.stderr
    assert (tmp_path / "specs/1_leaky_relu.yaml").is_file()
    loaded = run_blocked(tmp_path, "check", "--ignore", "G002", "specs/1_leaky_relu.yaml")
    assert loaded.returncode == 0, loaded.stdout + loaded.stderr
    assert "Traceback" not in clean.stderr + planted.stderr + new.stderr + loaded.stderr


@pytest.fixture
def without_torch_and_black(monkeypatch: pytest.MonkeyPatch):
    """chgen's metadata says torch and black are not installed."""
    installed = extras._installed
    monkeypatch.setattr(
        extras, "_installed", lambda name: name not in ("torch", "black") and installed(name)
    )


@pytest.mark.parametrize(
    "args, line",
    [
        (["generate"], "chgen generate needs the 'generate' extra: pip install 'chgen[generate]'"),
        (["import", "."], "chgen import needs the 'generate' extra"),
        (["judge", ".", "x.cu"], "chgen judge needs the 'judge' extra: pip install 'chgen[judge]'"),
        (["test"], "chgen test needs the 'judge' extra"),
        (["check", "--deep", "generated"], "chgen check --deep needs the 'judge' extra"),
        (["check", "--formatters", "generated"], "chgen check --formatters needs the 'formatters'"),
        (
            ["check", "specs"],
            "comparing a spec with its generated tree (G002) needs the 'generate'",
        ),
    ],
)
def test_a_missing_extra_is_one_line(workdir: Path, runner, without_torch_and_black, args, line):
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert result.output.count("\n") == 1, result.output
    assert result.output.startswith(f"error: {line}")
    assert "missing: " in result.output


def test_the_static_check_runs_without_them(workdir: Path, runner, without_torch_and_black):
    result = runner.invoke(app, ["check", "generated"])
    assert result.exit_code == 0, result.output


def test_extras_are_read_from_the_pyproject_pins():
    tomllib = pytest.importorskip("tomllib")
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    optional = declared["optional-dependencies"]
    found = extras.declared()
    assert found is not None, "chgen is not installed (pip install -e .)"
    assert sorted(found) == sorted(optional), "reinstall: the metadata predates pyproject.toml"
    assert "torch" in found["generate"] and "black" in found["generate"]
    assert "torch" not in found["formatters"]
    every = {name for names in found.values() for name in names}
    assert set(found["test"]) == every - {"chgen"}


def test_version_is_the_pyproject_version(runner):
    tomllib = pytest.importorskip("tomllib")
    written = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert __version__ == importlib.metadata.version("chgen") == written
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.output == f"chgen {written}\n"
