"""Forms of public-style challenges that chgen import must read right or keep as the original
writes them, so that what it imports also generates (fixtures/public_style/original_forms, ours)."""

from __future__ import annotations

import json
import shutil
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


#: 212's shape assertion of `offsets` made a device assertion too (rule P014: dropped)
OFFSETS_SHAPE = "        assert offsets.shape == (blocks,)\n"
WITH_DEVICE = "        assert offsets.shape == (blocks,) and offsets.device == x.device\n"


def test_a_size_only_a_dropped_device_assertion_reads_goes_with_it(runner, tmp_path: Path):
    tree = tmp_path / "public" / "challenges"
    shutil.copytree(MEDIUM.parent / "core", tree / "core")
    shutil.copytree(MEDIUM / "212_block_offsets", tree / "medium" / "212_block_offsets")
    path = tree / "medium" / "212_block_offsets" / "challenge.py"
    path.write_text(path.read_text().replace(OFFSETS_SHAPE, WITH_DEVICE))
    imported = import_challenge(path.parent)
    spec = yaml.safe_load(imported.spec_text)
    # `blocks` was read by the device assertion alone; `length` by the body too; the other
    # assertions are the author's and stay
    assert "blocks" not in spec["reference"] and spec["reference"].startswith("length = N\n")
    assert "assert x.shape == (length,)\nassert y.shape == (N,)\n" in spec["reference"]
    assert spec["signature"][1]["shape"] == ["(N + B - 1) // B"]
    found = {c.cause: c.details for c in imported.challenge_py.changes}
    assert found["sizes dropped with assertions"] == ["`blocks = (N + B - 1) // B`"]
    assert found["device assertion dropped"] == [f"`{WITH_DEVICE.strip()}`"]
    assert "# chgen import: challenge.py: device assertion dropped: rule P014" in (
        imported.spec_text
    )
    assert imported.generate_errors == [] and imported.equivalence.problems() == []
    _generates(runner, imported, tmp_path)


def test_the_authors_assertions_stay_and_chgen_adds_only_the_missing_ones(runner, tmp_path):
    imported = import_challenge(MEDIUM / "212_block_offsets")
    spec = yaml.safe_load(imported.spec_text)
    assert spec["reference"].startswith("blocks = (N + B - 1) // B\nlength = N\n")
    assert OFFSETS_SHAPE.strip() + "\n" in spec["reference"]
    _generates(runner, imported, tmp_path)
    (py,) = (tmp_path / "tree").rglob("challenge.py")
    text = py.read_text()
    # x's dtype is the author's; offsets' and y's are chgen's, first in the body
    assert text.count(".dtype == torch.float32") == 3
    head = "".join(f"        assert {n}.dtype == torch.float32\n" for n in ("offsets", "y"))
    assert head + "\n        blocks = (N + B - 1) // B\n" in text


def test_sizes_read_only_by_each_other_and_the_assertions_go_together():
    from generator.importer.pyast import read_source

    text = (MEDIUM / "212_block_offsets" / "challenge.py").read_text()
    chained = (
        text.replace(OFFSETS_SHAPE, WITH_DEVICE)
        .replace(
            "        blocks = (N + B - 1) // B\n",
            "        full = N + B - 1\n        blocks = full // B\n        kept = B * 2\n",
        )
        .replace("offsets[block_of])", "offsets[block_of] * kept)")
    )
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


def test_what_a_page_kept_as_written_breaks_is_tolerated_and_check_passes_it(
    runner, tmp_path: Path
):
    """A raw ≤ in the page (H013, a warning) is the author's text, carried unchanged: the spec
    tolerates H013, the import says where and why, and `chgen check` on the tree it generates
    passes it as tolerated; an edit of the page afterwards is counted again."""
    tree = tmp_path / "public"
    shutil.copytree(MEDIUM.parent / "core", tree / "challenges" / "core")
    original = tree / "challenges" / "medium" / "211_run_totals"
    shutil.copytree(MEDIUM / "211_run_totals", original)
    page = original / "challenge.html"
    page.write_text(page.read_text().replace("1 &le; <code>N</code>", "1 ≤ <code>N</code>"))
    imported = import_challenge(original)
    spec = yaml.safe_load(imported.spec_text)
    assert "H013" in spec["tolerated_rules"]
    assert "challenge.html" in imported.tolerated["H013"]
    assert "H013 (raw math character in HTML text)" in imported.spec_text
    imported.write(tree / "specs" / imported.spec_name)
    done = runner.invoke(
        app, ["generate", "--out", str(tree), "--force", "--specs", str(tree / "specs")]
    )
    assert done.exit_code == 0, done.output
    assert page.read_text().count("1 ≤ <code>N</code>") == 1  # the page as its author wrote it
    checked = runner.invoke(app, ["check", str(tree), "--select", "H"])
    assert checked.exit_code == 0, checked.output
    (line,) = [line for line in checked.output.splitlines() if " H013 " in line]
    assert line.endswith(f"[tolerated by {tree / 'specs' / imported.spec_name}]")
    assert checked.output.splitlines()[-1].startswith("0 error(s), 0 warning(s), 1 tolerated")
    page.write_text(page.read_text().replace("1 ≤ <code>N</code>", "1 ≤  <code>N</code>"))
    edited = runner.invoke(app, ["check", str(tree), "--select", "H"]).output
    assert " H013 " in edited and "[tolerated by" not in edited


STUB_CU = """#include <cuda_runtime.h>

__device__ float twice(float v) { return 2.0f * v; }

__global__ void run_totals_kernel(const float* x, const int* starts, float* totals, int N) {}

// x, starts, totals are device pointers (i.e. pointers to memory on the GPU)
extern "C" void solve(const float* x, const int* starts, float* totals, int N) {}
"""
STUB_TRITON = """import torch
import triton
import triton.language as tl


def block_count(n):
    return (n + 1023) // 1024


@triton.jit
def run_totals_kernel(x, starts, totals, N):
    x = x.to(tl.pointer_type(tl.float32))


# x, starts, totals are tensors on the GPU
def solve(x: torch.Tensor, starts: torch.Tensor, totals: torch.Tensor, N: int):
    pass
"""


def test_a_medium_starters_kernel_stub_is_not_carried_as_a_helper(runner, tmp_path: Path):
    """S010 flags a kernel stub in a medium starter: the import carries the helpers around it
    (starter_helpers), not the stub, and says so; the regenerated starters are S010-clean."""
    tree = tmp_path / "public"
    shutil.copytree(MEDIUM.parent / "core", tree / "challenges" / "core")
    original = tree / "challenges" / "medium" / "211_run_totals"
    shutil.copytree(MEDIUM / "211_run_totals", original)
    (original / "starter").mkdir()
    (original / "starter" / "starter.cu").write_text(STUB_CU)
    (original / "starter" / "starter.triton.py").write_text(STUB_TRITON)
    imported = import_challenge(original)
    helpers = yaml.safe_load(imported.spec_text)["starter_helpers"]
    assert helpers["cuda"] == "__device__ float twice(float v) { return 2.0f * v; }\n"
    assert helpers["triton"] == "def block_count(n):\n    return (n + 1023) // 1024\n"
    assert (
        "starter/starter.cu: `run_totals_kernel` not carried into starter_helpers: rule S010 "
        "flags it" in imported.spec_text
    )
    imported.write(tree / "specs" / imported.spec_name)
    done = runner.invoke(
        app, ["generate", "--out", str(tree), "--force", "--specs", str(tree / "specs")]
    )
    assert done.exit_code == 0, done.output
    assert "twice" in (original / "starter" / "starter.cu").read_text()
    checked = runner.invoke(app, ["check", str(tree), "--select", "S010", "--format", "json"])
    assert json.loads(checked.output) == []
