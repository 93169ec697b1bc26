"""G001 (spec errors) and G002 (generated tree out of date) through the same stages as
`chgen generate --check`."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from generator.checks.report import Options
from generator.checks.runner import run

ROOT = Path(__file__).resolve().parents[2]
SPEC = "specs/142_rms_norm_backward.yaml"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    shutil.copytree(ROOT / "specs", tmp_path / "specs")
    shutil.copytree(ROOT / "generated", tmp_path / "generated")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def codes(paths, **options):
    return [f for f in run([Path(p) for p in paths], Options(**options)).findings]


def test_g001_fires_on_a_schema_error(project: Path) -> None:
    spec = project / SPEC
    spec.write_text(
        spec.read_text().replace(
            "dtype: float32, direction: in, shape: [N, C]}",
            "dtype: float33, direction: in, shape: [N, C]}",
            1,
        )
    )
    found = [f for f in codes([SPEC]) if f.code == "G001"]
    assert found
    at = 1 + spec.read_text().splitlines().index(
        next(x for x in spec.read_text().splitlines() if "float33" in x)
    )
    assert found[0].path == SPEC and found[0].line == at
    assert "float33" in found[0].message


def test_g001_silent_on_clean_spec(project: Path) -> None:
    assert [f for f in codes([SPEC]) if f.code == "G001"] == []


def test_g002_fires_when_generated_file_was_edited(project: Path) -> None:
    html = project / "generated/challenges/medium/142_rms_norm_backward/challenge.html"
    lines = html.read_text().split("\n")
    lines[40] += " edited"
    html.write_text("\n".join(lines))
    found = [f for f in codes([SPEC]) if f.code == "G002"]
    assert [f.path for f in found] == [
        "generated/challenges/medium/142_rms_norm_backward/challenge.html"
    ]
    assert found[0].line <= 41
    assert "chgen generate" in found[0].message


def test_g002_silent_when_tree_is_current(project: Path) -> None:
    assert codes(["specs"]) == []


def test_g002_uses_the_tree_option(project: Path) -> None:
    shutil.move("generated", "elsewhere")
    found = codes([SPEC], generated=Path("elsewhere"))
    assert found == []
    found = [f for f in codes([SPEC]) if f.code == "G002"]
    assert found and all(f.path.startswith("generated/") for f in found)
