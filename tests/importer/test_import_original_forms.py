"""Forms of public-style challenges that chgen import must read right or keep as the original
writes them, so that what it imports also generates (fixtures/public_style/original_forms, ours)."""

from __future__ import annotations

from pathlib import Path

import yaml

from generator.cli import app
from generator.importer import import_challenge

MEDIUM = (
    Path(__file__).parent / "fixtures" / "public_style" / "original_forms" / "challenges" / "medium"
)


def _generates(runner, imported, tmp_path: Path) -> None:
    (spec,) = [
        p for p in imported.write(tmp_path / "specs" / imported.spec_name) if p.suffix == ".yaml"
    ]
    result = runner.invoke(app, ["generate", "--out", str(tmp_path / "tree"), str(spec)])
    assert result.exit_code == 0, result.output


def test_an_input_set_by_item_assignment_is_its_data_not_the_fill_it_started_from(
    runner, tmp_path: Path
):
    imported = import_challenge(MEDIUM / "211_run_totals")
    spec = yaml.safe_load(imported.spec_text)
    starts = [case["inputs"]["starts"] for case in spec["functional"]]
    # `torch.zeros(N)` then `starts[i] = 1`: the assigned values, not zeros
    assert starts == [{"values": [1, 0, 0]}, {"constant": 1}, {"values": [1, 0, 1, 0, 1, 0]}]
    assert imported.generate_errors == [] and imported.equivalence.problems() == []
    # too large for data: approximated, and the note names the assignment
    assert spec["performance"]["inputs"]["starts"] == {"randint": [0, 2]}
    assert "input starts drawn by code chgen cannot express (item assignment)" in (
        imported.spec_text
    )
    _generates(runner, imported, tmp_path)


def test_a_size_only_the_replaced_assertions_read_goes_with_them(runner, tmp_path: Path):
    imported = import_challenge(MEDIUM / "212_block_offsets")
    spec = yaml.safe_load(imported.spec_text)
    # `blocks` was read by `assert offsets.shape == (blocks,)` alone; `length` by the body too
    assert "blocks" not in spec["reference"] and spec["reference"].startswith("length = N\n")
    assert spec["signature"][1]["shape"] == ["(N + B - 1) // B"]
    assert "dropped with them: `blocks = (N + B - 1) // B`" in imported.spec_text
    assert imported.generate_errors == [] and imported.equivalence.problems() == []
    _generates(runner, imported, tmp_path)


def test_sizes_read_only_by_each_other_and_the_assertions_go_together():
    from generator.importer.pyast import read_source

    text = (MEDIUM / "212_block_offsets" / "challenge.py").read_text()
    chained = text.replace(
        "        blocks = (N + B - 1) // B\n",
        "        full = N + B - 1\n        blocks = full // B\n        kept = B * 2\n",
    ).replace("offsets[block_of])", "offsets[block_of] * kept)")
    reference = read_source(chained).reference
    assert reference.dropped_locals == ["blocks = full // B", "full = N + B - 1"]
    assert "kept = B * 2" in reference.body and "full" not in reference.body
