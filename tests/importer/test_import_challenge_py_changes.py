"""What the regenerated challenge.py changes in the original, by cause (importer/pychanges.py).

The originals are our own public-style fixtures (fixtures/public_style) and small texts written
here; each cause the account names is one a maintainer would otherwise find in the diff alone.
"""

from __future__ import annotations

import json
from pathlib import Path

from generator.cli import app
from generator.importer import import_challenge
from generator.importer.pychanges import CAUSES, account

FIXTURES = Path(__file__).parent / "fixtures" / "public_style"
SCALE = FIXTURES / "challenges" / "easy" / "201_scale_vector"

ORIGINAL = '''\
import ctypes
import math
from typing import Any, Dict, List

import torch
from core.challenge_base import ChallengeBase


class Challenge(ChallengeBase):
    name = "Twice"
    atol = 1e-04
    rtol = 1e-04
    num_gpus = 1
    access_tier = "free"

    def reference_impl(self, x: torch.Tensor, y: torch.Tensor, N: int):
        """Doubles x."""
        assert x.shape == y.shape == (N,)
        assert x.device == y.device
        y.copy_(x * 2)

    def reference_impl_jax(self, x, N):
        return x * 2

    def get_solve_signature(self) -> Dict[str, tuple]:
        return {
            "x": (ctypes.POINTER(ctypes.c_float), "in"),
            "y": (ctypes.POINTER(ctypes.c_float), "out"),
            "N": (ctypes.c_int, "in"),
        }

    def _case(self, n):
        # one case
        x = torch.ones(n, device=self.device)
        return {"x": x, "y": torch.empty(n, device=self.device), "N": n}

    def generate_example_test(self) -> Dict[str, Any]:
        return self._case(4)

    def generate_functional_test(self) -> List[Dict[str, Any]]:
        return [self._case(n) for n in (1, 2, 3)]

    def generate_performance_test(self) -> Dict[str, Any]:
        return self._case(1000)
'''


def regenerated(text: str) -> str:
    """ORIGINAL as chgen writes such a challenge (by hand here: the account reads texts only)."""
    return (
        text.replace("import math\n", "")
        .replace("1e-04", "0.0001")
        .replace('        """Doubles x."""\n', "")
        .replace("        assert x.device == y.device\n", "")
        .replace(
            "        assert x.shape == y.shape == (N,)\n",
            "        assert x.shape == y.shape == (N,)\n        assert x.dtype == torch.float32\n",
        )
        .replace("    def reference_impl_jax(self, x, N):\n        return x * 2\n\n", "")
    )


def test_each_change_is_put_down_to_its_cause():
    changes = account(ORIGINAL, regenerated(ORIGINAL))
    found = {c.cause: c.details for c in changes.changes}
    assert list(found) == [c for c in CAUSES if c in found]  # listed in the vocabulary's order
    assert found["device assertion dropped"] == ["`assert x.device == y.device`"]
    assert found["assertions added"] == ["`assert x.dtype == torch.float32`"]
    assert found["imports changed"] == ["`import math` dropped"]
    assert found["class attributes respelled"] == [
        "`atol = 1e-04` -> `atol = 0.0001`",
        "`rtol = 1e-04` -> `rtol = 0.0001`",
    ]
    assert found["docstrings dropped"] == ["reference_impl"]
    assert "reference_impl_jax dropped" in found
    assert "assertion forms replaced" not in found  # the author's shape assertion is kept
    assert changes.removed == 8 and changes.added == 3
    assert changes.summary().startswith("challenge.py +3 -8: device assertion dropped; ")


def test_identical_files_have_no_changes_and_layout_alone_is_named_so():
    assert account(ORIGINAL, ORIGINAL).identical
    exploded = ORIGINAL.replace(
        "    def reference_impl(self, x: torch.Tensor, y: torch.Tensor, N: int):",
        "    def reference_impl(\n        self, x: torch.Tensor, y: torch.Tensor, N: int\n    ):",
    )
    changes = account(ORIGINAL, exploded)
    assert [(c.cause, c.details) for c in changes.changes] == [
        ("layout changed", ["reference_impl"])
    ]


def test_loops_dropped_case_builders_and_chgens_case_form_are_named():
    text = ORIGINAL.replace(
        "        return [self._case(n) for n in (1, 2, 3)]",
        "        tests = []\n        for n in (1, 2, 3):\n            tests.append(self._case(n))\n"
        "        return tests",
    )
    ours = text.replace(
        "    def _case(self, n):\n        # one case\n",
        "    def _make(self, n):\n",
    ).replace("self._case(", "self._make(")
    found = {c.cause: c.details for c in account(text, ours).changes}
    assert found["loops written out as cases"] == ["1 loop(s) in generate_functional_test"]
    assert found["methods dropped"] == ["_case"]
    assert "`_make` builds each case in solve order" in found["cases written in chgen's form"]
    assert found["comments dropped"] == ["`# one case`"]


def test_an_import_reports_its_account_in_the_spec_and_the_tree_report(runner, tmp_path: Path):
    imported = import_challenge(SCALE)
    causes = imported.challenge_py.causes()
    assert causes == [
        "device assertion dropped",
        "loops written out as cases",
        "cases written in chgen's form",
    ]
    header = [line for line in imported.spec_text.splitlines() if line.startswith("# chgen")]
    assert f"# chgen import: {imported.challenge_py.summary()}" in header
    assert any(
        line.startswith("# chgen import: challenge.py: loops written out") for line in header
    )

    specs, report = tmp_path / "specs", tmp_path / "report.json"
    result = runner.invoke(
        app, ["import", str(FIXTURES), "--out", str(specs), "--report", str(report)]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(report.read_text())
    entry = next(r for r in data["results"] if r["challenge"] == "easy/201_scale_vector")
    assert [c["cause"] for c in entry["challenge_py"]["changes"]] == causes
    assert entry["challenge_py"]["lines_added"] == imported.challenge_py.added
    assert entry["starters"]["starter/starter.cu"] == "identical"
    assert entry["starters"]["starter/starter.mojo"] == "migrated"
    totals = data["challenge_py"]
    assert totals["compared"] == data["imported"]
    loops = next(c for c in totals["by_cause"] if c["cause"] == "loops written out as cases")
    assert "easy/201_scale_vector" in loops["challenges"] and loops["count"] == len(
        loops["challenges"]
    )
    assert data["starters"]["starter.mojo"].get("migrated", 0) >= 1
    # the summary line per challenge and the table by cause, where the import prints
    line = next(
        row for row in result.output.splitlines() if "imported easy/201_scale_vector" in row
    )
    assert line.endswith(imported.challenge_py.summary())
    assert f"challenge.py: {totals['changed']} of {totals['compared']} rewritten" in result.output
    assert "  loops written out as cases" in result.output


def test_the_comment_opening_the_performance_test_is_kept(runner, tmp_path: Path):
    import shutil

    tree = tmp_path / "public" / "challenges"
    shutil.copytree(FIXTURES / "challenges" / "core", tree / "core")
    shutil.copytree(SCALE, tree / "easy" / SCALE.name)
    path = tree / "easy" / SCALE.name / "challenge.py"
    opening = "    def generate_performance_test(self) -> Dict[str, Any]:\n"
    comment = "        # fifty million elements:\n        # two vectors of 200 MB\n"
    path.write_text(path.read_text().replace(opening, opening + comment))
    imported = import_challenge(path.parent)
    assert '  note: "fifty million elements:\\ntwo vectors of 200 MB"' in imported.spec_text
    assert "comments dropped" not in imported.challenge_py.causes()
    spec = imported.write(tmp_path / "specs" / imported.spec_name)[0]
    result = runner.invoke(app, ["generate", "--out", str(tmp_path / "tree"), str(spec)])
    assert result.exit_code == 0, result.output
    (py,) = (tmp_path / "tree" / "challenges").rglob("201_scale_vector/challenge.py")
    assert opening + comment + "        N = 50000000\n" in py.read_text()


def test_the_account_crosses_from_the_worker_as_checked_json():
    import pytest

    from generator.importer.report import Report
    from generator.importer.result import Equivalence, ImportResult, from_json, to_json
    from generator.isolation.channel import Refused

    changes = account(ORIGINAL, regenerated(ORIGINAL))
    result = ImportResult(
        "1_twice.yaml", "id: 1\n", None, None, Report(), {}, Equivalence([], []), [],
        challenge_py=changes, starters={"starter/starter.mojo": "migrated"},
    )  # fmt: skip
    back = from_json(json.loads(json.dumps(to_json(result))))
    assert back.challenge_py == changes and back.starters == result.starters
    forged = to_json(result)
    forged["challenge_py"]["changes"][0]["cause"] = "anything at all"
    with pytest.raises(Refused):
        from_json(forged)
    forged = to_json(result)
    forged["starters"] = {"../elsewhere": "kept"}
    with pytest.raises(Refused):
        from_json(forged)
