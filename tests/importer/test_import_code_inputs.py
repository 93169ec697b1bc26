"""Inputs the author builds with code of their own come back as the very same tests.

The fixtures (fixtures/public_style/constructed_inputs, ours, in the public form) build inputs the
spec's distributions have no form for: a sparse matrix as a mask times values, RoPE cos/sin tables,
item assignment, a written matrix of more than 64 entries, weights placed with `scatter_`, integer
pixel values drawn into float32, a count taken out of data drawn on the device. Each is imported,
generated, and its challenge.py compared with the original's, drawn with the judge's seeds on the
CPU: every input and reference result bit-identical, the performance case in value too.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from generator.cli import app
from generator.importer import import_challenge
from generator.importer.equivalence import compare_files

TREE = Path(__file__).parent / "fixtures" / "public_style" / "constructed_inputs" / "challenges"
SPARSE = TREE / "medium" / "211_sparse_rotary"
PIXELS = TREE / "medium" / "212_weighted_pixels"


def regenerate(challenge: Path, runner, tmp_path: Path):
    imported = import_challenge(challenge)
    spec = imported.write(tmp_path / "specs" / imported.spec_name)[0]
    result = runner.invoke(app, ["generate", "--out", str(tmp_path / "tree"), str(spec)])
    assert result.exit_code == 0, result.output
    generated = tmp_path / "tree" / "challenges" / challenge.parent.name / challenge.name
    return imported, yaml.safe_load(spec.read_text()), generated


def compare(challenge: Path, generated: Path, names, seed: int = 0):
    return compare_files(
        challenge / "challenge.py",
        TREE / "core" / "challenge_base.py",
        generated / "challenge.py",
        generated.parent.parent / "core" / "challenge_base.py",
        names,
        seed,
    )


def case(spec: dict, name: str) -> dict:
    return next(c for c in spec["functional"] if c["name"] == name)


@pytest.mark.parametrize("challenge", [SPARSE, PIXELS], ids=lambda p: p.name)
def test_constructed_inputs_come_back_bit_identical(challenge: Path, runner, tmp_path: Path):
    imported, _, generated = regenerate(challenge, runner, tmp_path)
    assert imported.report.approximated == {}
    assert not any("approximated" in line for line in imported.report.lines())
    for seed in (0, 7):
        equivalence = compare(challenge, generated, imported.case_names, seed)
        assert equivalence.problems() == []
        assert equivalence.performance_values  # drawn on the CPU and compared in value


def test_masks_tables_item_assignment_and_long_literals_are_kept(runner, tmp_path: Path):
    imported, spec, generated = regenerate(SPARSE, runner, tmp_path)
    sparse = case(spec, "sparse_a_few_nonzeros")
    assert sparse["inputs"]["A"]["code"] == (
        "(torch.rand((M, D), device=self.device) < 0.1) * torch.randn((M, D), "
        "device=self.device, dtype=torch.float32)"
    )
    assert "torch.outer(torch.arange(16, device=self.device, dtype=torch.float32)" in (
        sparse["inputs"]["cos"]["code"]
    )
    assert "cos = torch.cat([t1.cos(), t1.cos()], dim=-1)" in sparse["inputs"]["cos"]["code"]
    # nnz counts the nonzeros drawn: the code computes it (as the original does), whatever the
    # seed; the case gives no number for it
    assert sparse["inputs"]["sin"]["code"] == (
        "sin = torch.cat([t1.sin(), t1.sin()], dim=-1)\nnnz = int((A != 0).sum().item())\n"
    )
    assert sparse["scalars"] == {"M": 16, "D": 32}
    source = (generated / "challenge.py").read_text()
    assert "tests.append(self._make(A, cos, sin, M, D, nnz))" in source
    assigned = case(spec, "edge_one_row_half_of_it_set_by_item_assignment")["inputs"]
    assert assigned["A"] == {"values": [[1.5, 1.5, 1.5, 1.5, 0.0, 0.0, -2.0, 0.0]]}
    written = case(spec, "edge_a_written_matrix_of_more_than_64_entries")
    assert len(written["inputs"]["A"]["values"]) == 9
    assert written["scalars"]["nnz"] == 77  # counted from written data: a number of its own
    # a column drawn on the CPU after the method's own seed picks where A is set: the same on
    # every device and for every judge's seed, so the code writes it as the number it is
    seeded = case(spec, "edge_a_seeded_draw_picks_the_one_column_that_is_set")
    assert seeded["seed"] == 11
    assert seeded["inputs"]["A"]["code"] == (
        "torch.randint(0, 16, (1,))\n"
        "A = torch.zeros((M, D), device=self.device, dtype=torch.float32)\n"
        "A[:, 9] = torch.randn(8, device=self.device, dtype=torch.float32)\n"
    )
    assert "P016" not in (spec.get("tolerated_rules") or [])


def test_a_value_taken_out_of_data_drawn_on_the_device_is_refused(tmp_path: Path):
    """A column drawn on self.device, written as a number, would be the CPU's column: a GPU draws
    another. The regenerated test would differ on the GPU, so the challenge is refused."""
    from generator.importer import ImportFailure

    copy = tmp_path / "challenges" / "medium" / SPARSE.name
    copy.mkdir(parents=True)
    for name in ("challenge.py", "challenge.html"):
        text = (SPARSE / name).read_text()
        drawn = "torch.randint(0, 16, (1,), device=self.device)"
        (copy / name).write_text(text.replace("torch.randint(0, 16, (1,))", drawn))
    with pytest.raises(ImportFailure, match="drawn on self.device into Python"):
        import_challenge(copy)


def test_a_drawn_value_taken_into_python_without_a_seed_is_refused(tmp_path: Path):
    """A column drawn without a seed of the method's own, written as a number, would be the
    right one for the import's seed alone: the challenge is refused, and says why."""
    from generator.importer import ImportFailure

    copy = tmp_path / "challenges" / "medium" / SPARSE.name
    copy.mkdir(parents=True)
    for name in ("challenge.py", "challenge.html"):
        text = (SPARSE / name).read_text()
        (copy / name).write_text(text.replace("        torch.manual_seed(11)\n", ""))
    with pytest.raises(ImportFailure, match="drawn without a seed into Python"):
        import_challenge(copy)


def test_scatter_and_integer_pixels_in_float32(runner, tmp_path: Path):
    _, spec, generated = regenerate(PIXELS, runner, tmp_path)
    quarter = case(spec, "mixed_a_quarter_of_the_pixels_weighted")["inputs"]
    # integer pixel values drawn into float32 are the randint distribution itself
    assert quarter["pixels"] == {"randint": [0, 256]}
    assert quarter["weights"]["code"] == (
        "torch.zeros(N, device=self.device, dtype=torch.float32).scatter_(0, "
        "torch.randperm(100, device=self.device)[:25], torch.rand(25, device=self.device))"
    )
    source = (generated / "challenge.py").read_text()
    assert "weights = torch.zeros(N, device=self.device, dtype=torch.float32).scatter_(" in source


def test_a_case_not_reproduced_is_found_without_excuse(runner, tmp_path: Path):
    """The equivalence check has no excuse for a case: a spec changed by hand after the import
    (one case's weights scaled) is found, by the input and the case."""
    imported = import_challenge(PIXELS)
    spec = tmp_path / "specs" / imported.spec_name
    spec.parent.mkdir()
    drawn = "torch.rand(25, device=self.device))"
    assert drawn in imported.spec_text
    spec.write_text(imported.spec_text.replace(drawn, "torch.rand(25, device=self.device) * 2)"))
    result = runner.invoke(app, ["generate", "--out", str(tmp_path / "tree"), str(spec)])
    assert result.exit_code == 0, result.output
    generated = tmp_path / "tree" / "challenges" / "medium" / PIXELS.name
    equivalence = compare(PIXELS, generated, imported.case_names)
    assert equivalence.problems() == [
        "case mixed_a_quarter_of_the_pixels_weighted: weights differs in value"
    ]
