"""Golden records: trees generated from specs of public-challenge shapes, reviewed like code.

Regenerate them with `make golden` after an intended change, then review the diff.
"""

from __future__ import annotations

import difflib
from pathlib import Path

from generator.incremental import NoCache
from generator.pipeline import generate
from tests.conftest import GOLDEN, ROOT

SPECS = sorted((GOLDEN / "specs").glob("*.yaml"))


def test_there_are_golden_specs_of_each_shape():
    names = {p.stem for p in SPECS}
    assert {
        "1_vector_add",
        "3_matrix_transpose",
        "13_histogramming",
        "58_fp16_dot_product",
    } <= names


def files_of(root: Path) -> dict:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_golden_trees_are_what_the_specs_render_to_now(tmp_path):
    """Rendered from scratch into an empty folder (no cache, no manifest to trust) and compared
    file by file, the manifest included."""
    result = generate(SPECS, tmp_path / "tree", root=ROOT, cache=NoCache())
    assert result.written and result.rendered == len(SPECS)
    fresh, recorded = files_of(tmp_path / "tree"), files_of(GOLDEN / "tree")
    assert sorted(fresh) == sorted(recorded), "run 'make golden' and review the diff"
    differing = [name for name in sorted(fresh) if fresh[name] != recorded[name]]
    assert not differing, "run 'make golden' and review the diff\n" + "".join(
        difflib.unified_diff(
            recorded[name].decode().splitlines(True), fresh[name].decode().splitlines(True), name
        )
        for name in differing
    )


def golden(path: str) -> str:
    return (GOLDEN / "tree" / "challenges" / path).read_text()


def test_fp16_maps_through_the_dtype_table():
    cu = golden("medium/58_fp16_dot_product/starter/starter.cu")
    assert cu.startswith("#include <cuda_fp16.h>\n#include <cuda_runtime.h>\n")
    assert "const half* A, const half* B, half* result, int N" in cu
    assert "Pointer[Float16, ImmUntrackedOrigin]" in golden(
        "medium/58_fp16_dot_product/starter/starter.mojo"
    )
    assert "ctypes.POINTER(ctypes.c_uint16)" in golden("medium/58_fp16_dot_product/challenge.py")


def test_int32_outputs_and_prefill_stay_integers():
    py = golden("medium/13_histogramming/challenge.py")
    assert '"histogram": (ctypes.POINTER(ctypes.c_int), "out")' in py
    assert "torch.full((num_bins,), 123, device=self.device, dtype=torch.int32)" in py
    assert "const int* input, int* histogram, int N, int num_bins" in golden(
        "medium/13_histogramming/starter/starter.cu"
    )


def test_easy_pages_use_pre_for_1d_and_bmatrix_for_2d():
    assert "<pre>\nInput:  A = [1.0, 2.0, 3.0, 4.0]" in golden("easy/1_vector_add/challenge.html")
    page = golden("easy/3_matrix_transpose/challenge.html")
    assert "\\begin{bmatrix}" in page and "<pre>" not in page


def test_easy_starters_carry_scaffolds_in_cuda_mojo_triton_only():
    base = "easy/3_matrix_transpose/starter/"
    assert "dim3 threadsPerBlock(16, 16);" in golden(base + "starter.cu")
    assert "grid_dim=(grid_x, grid_y)" in golden(base + "starter.mojo")
    assert "matrix_transpose_kernel[grid]" in golden(base + "starter.triton.py")
    for name in ("starter.pytorch.py", "starter.jax.py", "starter.cute.py"):
        assert golden(base + name).rstrip().endswith("pass")
    assert "(i.e. pointers to memory on the GPU)" in golden(base + "starter.cu")
    assert "(i.e." not in golden(base + "starter.pytorch.py")


def test_golden_tree_is_not_empty():
    files = [p for p in (GOLDEN / "tree").rglob("*") if p.is_file()]
    assert len(files) == 5 * 8 + 2  # five challenges, the base class, the manifest
    assert all(Path(p).stat().st_size > 0 for p in files)
