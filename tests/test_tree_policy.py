"""Generating into a repository that is not chgen's alone changes only what was asked for.

A clone of our public-form fixture tree (its own base class, no TileLang starters) is imported and
regenerated in place, as a maintainer adopting chgen does: the base class is not written, no
language is added, the root is not exchanged, nothing lands outside the challenge directories
but chgen's own `.chgen/manifest.json`, a capitalised directory is regenerated where it is, and
a spec that would give an id a second directory is refused at its `id:` line.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from generator.cli import app

FIXTURE = Path(__file__).parent / "importer" / "fixtures" / "public_style" / "challenges"
KEEP = ["core", "easy/201_scale_vector", "medium/202_row_rescale"]


def git(tree: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=tree, capture_output=True, text=True, check=True
    ).stdout


@pytest.fixture
def clone(tmp_path: Path, monkeypatch) -> Path:
    """A git repository in the public form with two challenges, one in a capitalised directory."""
    tree = tmp_path / "repo"
    for name in KEEP:
        shutil.copytree(FIXTURE / name, tree / "challenges" / name)
    (tree / "challenges" / "medium" / "202_row_rescale").rename(
        tree / "challenges" / "medium" / "202_Row_Rescale"
    )
    (tree / "README.md").write_text("a challenge set\n")
    git(tree, "init", "-q")
    git(tree, "add", "-A")
    git(tree, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "start")
    monkeypatch.chdir(tree)
    monkeypatch.setenv("CHGEN_CACHE", str(tmp_path / "cache"))
    return tree


def changed(tree: Path) -> list:
    return sorted(line[3:] for line in git(tree, "status", "--porcelain", "-uall").splitlines())


def test_in_place_generation_writes_only_the_challenge_directories(clone: Path, runner):
    base = (clone / "challenges" / "core" / "challenge_base.py").read_bytes()
    inode = clone.stat().st_ino
    result = runner.invoke(app, ["import", ".", "--out", "specs"])
    assert result.exit_code == 0, result.output
    spec = (clone / "specs" / "202_row_rescale.yaml").read_text()
    assert "directory: 202_Row_Rescale" in spec
    result = runner.invoke(app, ["generate", "--out", ".", "--force"])
    assert result.exit_code == 0, result.output
    assert clone.stat().st_ino == inode  # the root was not exchanged
    assert (clone / "challenges" / "core" / "challenge_base.py").read_bytes() == base
    files = changed(clone)
    assert all(f.startswith(("challenges/easy/", "challenges/medium/", "specs/")) or
               f == ".chgen/manifest.json" for f in files), files  # fmt: skip
    assert ".chgen/manifest.json" in files
    assert not list(clone.rglob("starter.tilelang.py"))  # the tree ships no TileLang
    assert not (clone / "challenges" / "medium" / "202_row_rescale").exists()
    assert sorted(p.name for p in clone.parent.iterdir()) == ["cache", "repo"]  # nothing beside
    # the second run has nothing to do, and says so without --force
    result = runner.invoke(app, ["generate", "--out", ".", "--check"])
    assert result.exit_code == 0, result.output


def test_languages_are_one_flag_away(clone: Path, runner):
    assert runner.invoke(app, ["import", ".", "--out", "specs"]).exit_code == 0
    result = runner.invoke(
        app, ["generate", "--out", ".", "--force", "--languages", "cuda,tilelang"]
    )
    assert result.exit_code == 0, result.output
    added = [f for f in changed(clone) if f.endswith("starter.tilelang.py")]
    assert added == [
        "challenges/easy/201_scale_vector/starter/starter.tilelang.py",
        "challenges/medium/202_Row_Rescale/starter/starter.tilelang.py",
    ]
    result = runner.invoke(app, ["generate", "--out", ".", "--languages", "cobol"])
    assert result.exit_code == 1
    assert "--languages:1:1: unknown language 'cobol' (languages are cuda, " in result.output


def test_the_specs_folder_can_name_the_languages(clone: Path, runner):
    assert runner.invoke(app, ["import", ".", "--out", "specs"]).exit_code == 0
    (clone / "specs" / "chgen.yaml").write_text("languages: [pytorch, tilelang]\n")
    result = runner.invoke(app, ["generate", "--out", ".", "--force"])
    assert result.exit_code == 0, result.output
    assert [f for f in changed(clone) if f.endswith("tilelang.py")]
    assert not [f for f in changed(clone) if f.endswith(".cu")]  # CUDA is not rewritten
    (clone / "specs" / "chgen.yaml").write_text("languages: [pytorch, fortran]\n")
    result = runner.invoke(app, ["generate", "--out", ".", "--force"])
    assert result.exit_code == 1
    assert "specs/chgen.yaml:1:22: unknown language 'fortran'" in result.output


def test_a_second_directory_for_an_id_is_refused(clone: Path, runner):
    assert runner.invoke(app, ["import", ".", "--out", "specs"]).exit_code == 0
    spec = clone / "specs" / "202_row_rescale.yaml"
    spec.write_text(spec.read_text().replace("directory: 202_Row_Rescale\n", ""))
    result = runner.invoke(app, ["generate", "--out", ".", "--force"])
    assert result.exit_code == 1
    line = next(
        i for i, text in enumerate(spec.read_text().splitlines(), 1) if text.startswith("id:")
    )
    assert (
        f"specs/202_row_rescale.yaml:{line}:5: id 202 is already used by "
        "challenges/medium/202_Row_Rescale/ in ./; writing medium/202_row_rescale would give the "
        "tree two challenges 202 (set 'directory: 202_Row_Rescale' to regenerate that challenge)"
    ) in result.output
    assert changed(clone) == sorted(
        f"specs/{p.name}" for p in (clone / "specs").iterdir()
    )  # nothing was written


def test_a_directory_must_name_the_spec_id(tmp_path: Path, runner):
    root = Path(__file__).resolve().parent.parent
    text = (root / "specs" / "143_row_inverse_rms.yaml").read_text()
    spec = tmp_path / "143_row_inverse_rms.yaml"
    spec.write_text(
        text.replace("slug: row_inverse_rms\n", "slug: row_inverse_rms\ndirectory: 42_Row\n")
    )
    result = runner.invoke(app, ["check", str(spec)])
    assert result.exit_code != 0
    assert "directory '42_Row' does not start with the id 143" in result.output
