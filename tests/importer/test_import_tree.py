"""`chgen import TREE --out DIR`: every challenge of a tree, refusals grouped by reason.

The fixture tree (fixtures/public_style) holds six challenges that import, one whose dtype chgen's
table lacks and one whose generate_functional_test raises; a temporary tree adds a challenge that
never finishes and one that kills its own interpreter.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from generator.cli import app
from generator.importer.report import reason_of

FIXTURE_TREE = Path(__file__).parent / "fixtures" / "public_style"
IMPORTED = [
    "easy/201_scale_vector",
    "medium/202_row_rescale",
    "medium/203_bf16_axpy",
    "medium/206_scale_positives",
    "medium/207_padded_window_max",
    "medium/208_capped_reach",
]
REFUSED = {
    "medium/204_double_scale": "dtype outside chgen's dtype table",
    "medium/205_raising_cases": "challenge.py raises while its cases are traced",
}


def test_a_tree_imports_what_it_can_and_groups_the_rest_by_reason(runner, tmp_path: Path):
    specs, report = tmp_path / "specs", tmp_path / "report.json"
    result = runner.invoke(
        app, ["import", str(FIXTURE_TREE), "--out", str(specs), "--report", str(report)]
    )
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    data = json.loads(report.read_text())
    # in the tree's order (difficulty, then id), whichever worker finished first
    assert [r["challenge"] for r in data["results"]] == IMPORTED[:3] + list(REFUSED) + IMPORTED[3:]
    assert (data["challenges"], data["imported"], data["refused"]) == (8, 6, 2)
    by_reason = {g["reason"]: g["challenges"] for g in data["reasons"]}
    assert by_reason == {reason: [name] for name, reason in REFUSED.items()}
    raising = next(r for r in data["results"] if r["challenge"] == "medium/205_raising_cases")
    assert raising["detail"] == "generate_functional_test" and "KeyError" in raising["message"]
    for entry in data["results"]:
        if entry["status"] == "imported":
            assert entry["identical"] and entry["not_equivalent"] == []
    written = sorted(p.name for p in specs.glob("*.yaml"))
    assert written == [
        "201_scale_vector.yaml",
        "202_row_rescale.yaml",
        "203_bf16_axpy.yaml",
        "206_scale_positives.yaml",
        "207_padded_window_max.yaml",
        "208_capped_reach.yaml",
    ]
    # the table names each reason with its challenges
    for name, reason in REFUSED.items():
        assert any(reason in line and name in line for line in result.output.splitlines())
    assert "6 of 8 challenge(s) imported" in result.output
    # what a tree import writes generates as it is
    generated = runner.invoke(
        app, ["generate", "--specs", str(specs), "--out", str(tmp_path / "tree")]
    )
    assert generated.exit_code == 0, generated.output


def test_the_challenges_folder_itself_is_a_tree_and_existing_specs_are_kept(runner, tmp_path: Path):
    specs = tmp_path / "specs"
    specs.mkdir()
    kept = specs / "201_scale_vector.yaml"
    kept.write_text("# mine\n")
    tree = str(FIXTURE_TREE / "challenges")
    result = runner.invoke(app, ["import", tree, "--out", str(specs)])
    assert result.exit_code == 1
    assert "nothing was written (use --force)" in result.output
    assert kept.read_text() == "# mine\n" and sorted(specs.iterdir()) == [kept]
    forced = runner.invoke(app, ["import", tree, "--out", str(specs), "--force"])
    assert forced.exit_code == 0, forced.output
    assert kept.read_text() != "# mine\n"


def test_a_folder_without_challenges_is_one_line(runner, tmp_path: Path):
    result = runner.invoke(app, ["import", str(tmp_path)])
    assert result.exit_code == 1
    assert (
        result.output.strip().count("\n") == 0
        and "no challenge.py and no challenges/" in result.output
    )


HANGS = "        while True:\n            pass\n"
EXITS = "        import os\n\n        os._exit(3)\n"


def _tree_with(tmp_path: Path, bodies: dict) -> Path:
    """A copy of the fixture tree's 205 challenge per entry, its functional cases replaced."""
    root = tmp_path / "tree" / "challenges"
    shutil.copytree(FIXTURE_TREE / "challenges" / "core", root / "core")
    source = FIXTURE_TREE / "challenges" / "medium" / "205_raising_cases"
    for name, body in bodies.items():
        target = root / "medium" / name
        shutil.copytree(source, target)
        text = (target / "challenge.py").read_text()
        head, _, rest = text.partition("        sizes = {")
        rest = rest.split("\n", 2)[2]  # drop the sizes line and the return after it
        (target / "challenge.py").write_text(head + body + rest)
    return root.parent


def test_a_challenge_past_its_time_limit_or_killing_its_process_is_refused(runner, tmp_path: Path):
    tree = _tree_with(tmp_path, {"301_hangs": HANGS, "302_exits": EXITS})
    report = tmp_path / "report.json"
    result = runner.invoke(
        app,
        ["import", str(tree), "--out", str(tmp_path / "specs"), "--report", str(report)]
        + ["--timeout", "5"],
    )
    assert result.exit_code == 1  # nothing imported
    assert "Traceback" not in result.output
    reasons = {r["challenge"]: r["reason"] for r in json.loads(report.read_text())["results"]}
    assert reasons == {
        "medium/301_hangs": "challenge.py ran past the time limit",
        "medium/302_exits": "the import process died",
    }
    assert not (tmp_path / "specs").exists()


def test_refusals_group_by_construct_and_unknown_ones_by_their_words():
    derived = (
        "dimension 0 of out (written 2 * N) is [2, 4] across cases and equals no size parameter"
    )
    assert reason_of(derived) == ("tensor dimension is an expression of the sizes", "2 * N")
    assert reason_of("x has rank [1, 3] across cases (not representable)")[1] == "[1, 3]"
    first = reason_of("a new construct 'foo' seen 3 times in [1, 2]")
    second = reason_of("a new construct 'bar' seen 12 times in [7]")
    assert first == second and first[1] is None
