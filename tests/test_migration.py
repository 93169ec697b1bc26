"""The in-place migration a maintainer runs (benchmarks/migration.py), on a repository of ours.

A git repository in the public form, assembled from our fixtures (a base class of the public form,
a capitalised directory name, pages with examples in several forms, a `reference_impl_jax`, inputs
the author builds with masked products, `scatter_`, `cos` and item assignment) is imported and
regenerated in place; the measure must show that nothing was lost and nothing else was touched.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.migration import measure  # noqa: E402

FIXTURES = Path(__file__).parent / "importer" / "fixtures"
#: (fixture folder holding challenges/, challenge directory, name in the repository)
CHALLENGES = [
    ("public_style", "easy/201_scale_vector", "easy/201_scale_vector"),
    ("public_style", "medium/202_row_rescale", "medium/202_Row_Rescale"),  # a capitalised name
    ("public_style", "medium/206_scale_positives", "medium/206_scale_positives"),
    ("public_style/jax_references", "medium/209_softcap_rows", "medium/209_softcap_rows"),
    ("public_style/jax_references", "medium/210_row_max", "medium/210_row_max"),
    ("public_style/page_text", "easy/221_shift_values", "easy/221_shift_values"),  # second <pre>
    ("public_style/page_text", "medium/222_prose_rules", "medium/222_prose_rules"),
    # masked products, scatter_, cos/sin tables, item assignment, randint into float32
    ("public_style/constructed_inputs", "medium/211_sparse_rotary", "medium/211_sparse_rotary"),
    ("public_style/constructed_inputs", "medium/212_weighted_pixels", "medium/212_weighted_pixels"),
]


def git(tree: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=tree, capture_output=True, text=True, check=True)


@pytest.fixture
def repository(tmp_path: Path) -> Path:
    tree = tmp_path / "repo"
    shutil.copytree(FIXTURES / "public_style" / "challenges" / "core", tree / "challenges" / "core")
    for fixture, source, target in CHALLENGES:
        origin = FIXTURES / fixture
        origin = origin / "challenges" if (origin / "challenges").is_dir() else origin
        shutil.copytree(origin / source, tree / "challenges" / target)
    (tree / "README.md").write_text("a challenge set of ours\n")
    git(tree, "init", "-q")
    git(tree, "add", "-A")
    git(tree, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "start")
    return tree


@pytest.mark.slow
def test_the_migration_loses_nothing_and_touches_nothing_else(repository: Path, tmp_path: Path):
    work = tmp_path / "work"
    work.mkdir()
    result = measure(repository, work, None, perf_mb=64, hooks=True)
    assert result["generate"]["error"] is None, result["generate"]
    assert result["pages_losing_text"] == {}
    assert result["seeded_data"]["differ"] == {}
    assert result["seeded_data"]["not_readable_in_original"] == []
    assert result["directories"] == {"added": [], "removed": []}, result["directories"]
    assert "added" not in result["files"], result["files"]  # no file added (no TileLang)
    assert result["outside_rendered_dirs"] == []
    assert result["chgen_state"] == [".chgen/manifest.json"]
    assert result["duplicate_ids"] == {}
    assert result["hooks"]["failing"] == {}
    assert result["after"]["generate_check_clean"]
    assert result["after"]["check_new_findings"] == []
    # the page forms and the capitalised name the import keeps are tolerated by their specs,
    # each one a finding of the original too: chgen check passes the migrated tree
    assert result["after"]["check_exit"] == 0, result["after"]["check_summary"]
    assert result["after"]["check_tolerated_new"] == []
