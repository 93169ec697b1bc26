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
    # too large for data: the original's own calls, the assignment among them
    performance = spec["performance"]["inputs"]
    assert performance["x"] == {"uniform": [-1.0, 1.0]}  # one plain draw
    assert performance["starts"]["code"] == (
        "t1 = torch.zeros(N, dtype=torch.int32)\nt1[::100] = 1\nstarts = t1.to(self.device)\n"
    )
    assert imported.report.approximated == {}
    assert "case performance: its inputs are made by the original's own torch calls (code)" in (
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


def test_a_page_showing_a_batch_of_one_as_matrices_keeps_that_form(runner, tmp_path: Path):
    # rendered from the values (the page's block itself would be kept as the example's display)
    imported = import_challenge(MEDIUM / "213_masked_row_sums", written_examples=False)
    spec = yaml.safe_load(imported.spec_text)
    # x is [1, 2, 3] beside the 2-D mask: chgen's own form for rank 3 is <pre>, which H009
    # refuses for the mask; the page writes bmatrix, so the spec squeezes the batch of one
    assert spec["page"]["matrix"]["squeeze"] is True
    assert "(page.matrix.squeeze)" in imported.spec_text
    assert imported.generate_errors == [] and imported.equivalence.problems() == []
    _generates(runner, imported, tmp_path)
    page = tmp_path / "tree" / "challenges" / "medium" / "213_masked_row_sums" / "challenge.html"
    text = page.read_text()
    assert "<pre>" not in text
    # (indented inside its <p> as the page indents it: page.matrix.indent)
    assert (
        "  <code>x</code> (1&times;2&times;3):\n  \\[\n  \\begin{bmatrix}\n"
        "  1.0 & 2.0 & 3.0 \\\\\n  4.0 & 5.0 & 6.0\n" in text
    )


def test_a_batch_of_one_counts_as_its_matrix_only_when_squeezed():
    from generator.html import example_form, unbatched

    batch = [[[1.0, 2.0], [3.0, 4.0]]]
    tensors = [("x", [1, 2, 2], batch), ("w", [2, 2], [[1.0, 0.0], [0.0, 1.0]])]
    assert unbatched(batch) == [[1.0, 2.0], [3.0, 4.0]]
    assert unbatched([[1.0, 2.0]]) == [[1.0, 2.0]]  # already a matrix (of one row)
    assert unbatched([[[1.0], [2.0]], [[3.0], [4.0]]]) == [[[1.0], [2.0]], [[3.0], [4.0]]]
    assert example_form(tensors) == "pre"
    assert example_form(tensors, squeeze=True) == "matrix"
    # a batch of two stays rank 3: <pre> either way
    two = [("x", [2, 1, 2], [[[1.0, 2.0]], [[3.0, 4.0]]])]
    assert example_form(two, squeeze=True) == "pre"
    # a page that writes the same data in <pre> is left as it is
    pre_page = (MEDIUM / "213_masked_row_sums" / "challenge.html").read_text()
    assert "squeeze" not in _imported_with_page(pre_page.replace("\\begin{bmatrix}", "<pre>"))


def _imported_with_page(page: str) -> str:
    """The spec text chgen import writes for the fixture with another challenge.html."""
    import shutil
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "challenges"
        shutil.copytree(MEDIUM.parent / "core", root / "core")
        target = root / "medium" / "213_masked_row_sums"
        shutil.copytree(MEDIUM / "213_masked_row_sums", target)
        (target / "challenge.html").write_text(page)
        return import_challenge(target).spec_text


def test_item_assignment_makes_a_fill_opaque_and_leaves_a_draw_its_distribution():
    import torch

    from generator.importer.trace import Tracer, recipe_of

    with Tracer():
        filled = torch.zeros(4, dtype=torch.int32)
        filled[1] = 1
        moved = filled.to("cpu")
        drawn = torch.randn(2, 4)
        drawn[:, 2:] = drawn[:, :2]
    assert (recipe_of(moved).parts[0].kind, recipe_of(moved).parts[0].why) == (
        "opaque",
        "item assignment",
    )
    assert recipe_of(drawn).kind == "normal"
