"""Constructs chgen import writes for public-style challenges: module constants and imports the
reference reaches, flattened sliding-window and ceiling-division dimensions, inf in float data,
and a reference that only runs in the signature's dtypes (fixtures/public_style, ours)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from generator.cli import app
from generator.importer import import_challenge
from generator.importer.infer import _product_of_factors
from generator.spec.read import load_spec_text
from generator.spec.yamlpos import SpecErrors

MEDIUM = Path(__file__).parent / "fixtures" / "public_style" / "challenges" / "medium"


def _generate(runner, imported, tmp_path: Path) -> Path:
    (spec,) = [
        p for p in imported.write(tmp_path / "specs" / imported.spec_name) if p.suffix == ".yaml"
    ]
    result = runner.invoke(app, ["generate", "--out", str(tmp_path / "tree"), str(spec)])
    assert result.exit_code == 0, result.output
    return tmp_path / "tree" / "challenges" / "medium"


def test_module_constants_imports_and_a_padded_window_dimension(runner, tmp_path: Path):
    imported = import_challenge(MEDIUM / "207_padded_window_max")
    spec = yaml.safe_load(imported.spec_text)
    y = next(p for p in spec["signature"] if p["name"] == "y")
    assert y["shape"] == ["((L + 2 * padding - size) // stride + 1) * 2"]
    helpers = spec["reference_helpers"]
    assert "import torch.nn.functional as F" in helpers and "CHANNELS = 2" in helpers
    assert "# The value a padded position takes" in helpers
    assert imported.generate_errors == [] and imported.equivalence.problems() == []
    challenge_py = _generate(runner, imported, tmp_path) / "207_padded_window_max" / "challenge.py"
    text = challenge_py.read_text()
    # the imports join challenge.py's own; the constants follow them, before the functions
    assert "import torch\nimport torch.nn.functional as F\nfrom core.challenge_base" in text
    assert text.index("PAD_VALUE = -1000.0") < text.index("def _window_max")


def test_inf_data_and_a_reference_that_mixes_float32_tensors_of_its_own(runner, tmp_path: Path):
    imported = import_challenge(MEDIUM / "208_capped_reach")
    assert "cost: [0.0, 2.0, .inf, .inf, 0.0, 1.0, 4.0, .inf, 0.0]" in imported.spec_text
    # the float64 run fails (float32 @ float64); the signature's dtypes reproduce the example
    assert imported.generate_errors == [] and imported.equivalence.problems() == []
    text = (_generate(runner, imported, tmp_path) / "208_capped_reach" / "challenge.py").read_text()
    assert '[float("inf")]' in text


@pytest.mark.parametrize(
    "dims, sizes, expected",
    [
        # (rows - k + 1) * (cols - k + 1), a 2-D valid convolution flattened
        (
            [4, 12, 36, 35],
            [(3, 3, 2, 2), (5, 6, 3, 3), (7, 8, 2, 3), (9, 9, 3, 5)],
            "(R - A + 1) * (C - B + 1)",
        ),
        # ceiling division by a tile
        ([1, 2, 3, 1], [(1, 16), (17, 16), (33, 16), (64, 64)], "(M + T - 1) // T"),
    ],
)
def test_dimensions_found_as_products_of_window_and_tile_counts(dims, sizes, expected):
    names = ["R", "C", "A", "B"] if len(sizes[0]) == 4 else ["M", "T"]
    values = [dict(zip(names, case)) for case in sizes]
    assert _product_of_factors(names, values, dims) == expected


def test_no_product_fits_and_none_is_returned():
    values = [{"N": 3}, {"N": 5}, {"N": 7}]
    assert _product_of_factors(["N"], values, [10, 11, 13]) is None


BASE = """id: 301
slug: inf_in_data
name: Inf In Data
difficulty: medium
atol: 1.0e-05
rtol: 1.0e-05
signature:
  - {name: x, dtype: DTYPE, direction: in, shape: [N]}
  - {name: y, dtype: float32, direction: out, shape: [N + 2 * P]}
  - {name: N, dtype: int32}
  - {name: P, dtype: int32}
reference: |
  y.copy_(torch.nn.functional.pad(x.to(y.dtype), (P, P)))
description: <p>Pad.</p>
requirements: [Nothing]
constraints: [Nothing]
example:
  scalars: {N: 2, P: 0}
  inputs: {x: [1, 2]}
  outputs: {y: [1.0, 2.0]}
functional:
  - {name: one, scalars: {N: 1, P: PAD}, inputs: {x: {values: [VALUE]}}}
performance:
  scalars: {N: 4, P: 1}
  inputs: {x: {constant: 1}}
  min_bytes: 4 * N
"""


def _spec(dtype: str, value: str, pad: int = 1) -> str:
    return BASE.replace("DTYPE", dtype).replace("VALUE", value).replace("PAD", str(pad))


def test_inf_is_float_data_only_and_an_expression_only_size_may_be_zero():
    assert load_spec_text(_spec("float32", ".inf", pad=0), "301_inf_in_data.yaml")
    with pytest.raises(SpecErrors) as info:
        load_spec_text(_spec("int32", ".inf"), "301_inf_in_data.yaml")
    (error,) = [e.render() for e in info.value.errors]
    assert error.startswith("301_inf_in_data.yaml:22:62:")
    assert ".inf does not fit 'x' (int32): NaN and infinity are float values only" in error
    with pytest.raises(SpecErrors) as info:
        load_spec_text(
            _spec("float32", "1.0")
            .replace("{N: 1, P: 0}", "{N: 0, P: 0}")
            .replace("{N: 1, P: 1}", "{N: 0, P: 1}"),
            "301_inf_in_data.yaml",
        )
    assert any("size 'N' must be at least 1" in e.render() for e in info.value.errors)


# ------------------------------------------------------------------- starter layout options

GOLDEN_EASY = Path(__file__).parent.parent / "golden" / "specs" / "1_vector_add.yaml"
SCAFFOLD = "scaffold: {kernel: vector_add, grid: [N]}"


def _starters(replacement: str) -> dict:
    from generator.render import render_starters

    text = GOLDEN_EASY.read_text().replace(SCAFFOLD, replacement)
    return render_starters(load_spec_text(text, "1_vector_add.yaml").spec)


def test_a_starter_scaffold_variant_and_an_exploded_solve_render_as_written():
    variant = (
        "scaffold:\n  kernel: vector_add\n  grid: [N]\n  starters:\n"
        "    triton: {kernel: add, parameters: [a_ptr, b_ptr, c_ptr, N], grid: N // 2, "
        "block_keyword: true}\n"
        "exploded_solve: [jax]"
    )
    files = _starters(variant)
    triton = files["starter/starter.triton.py"]
    assert "def add(a_ptr, b_ptr, c_ptr, N, BLOCK_SIZE: tl.constexpr):" in triton
    assert "grid = (triton.cdiv(N // 2, BLOCK_SIZE),)" in triton
    assert "add[grid](A, B, C, N, BLOCK_SIZE=BLOCK_SIZE)" in triton
    assert (
        "def solve(\n    A: jax.Array,\n    B: jax.Array,\n    N: int,\n)"
        in files["starter/starter.jax.py"]
    )
    # the other languages keep chgen's form
    assert "vector_add<<<blocksPerGrid" in files["starter/starter.cu"]
    default = _starters(SCAFFOLD)
    assert files["starter/starter.pytorch.py"] == default["starter/starter.pytorch.py"]


@pytest.mark.parametrize(
    "variant, message",
    [
        ("{cuda: {parameters: [a, b]}}", "2 name(s) for 4 solve parameters"),
        ("{jax: {kernel: k}}", "'jax' is not a scaffolded language"),
        ("{triton: {grid: M // 2}}", "'M' is not a size parameter"),
    ],
)
def test_a_starter_scaffold_variant_is_checked_with_its_position(variant: str, message: str):
    text = GOLDEN_EASY.read_text().replace(
        SCAFFOLD, "scaffold:\n  kernel: vector_add\n  grid: [N]\n  starters: " + variant
    )
    with pytest.raises(SpecErrors) as info:
        load_spec_text(text, "1_vector_add.yaml")
    (error,) = [e.render() for e in info.value.errors]
    assert error.startswith("1_vector_add.yaml:51:") and message in error


def test_the_import_reads_the_variant_and_the_exploded_solve_from_starters():
    from generator.importer.starters import exploded_solve, python_scaffold

    triton = (
        "import triton\n\n\n@triton.jit\ndef add(a_ptr, b_ptr, N, BLOCK_SIZE: tl.constexpr):\n"
        "    pass\n\n\n# a, b are tensors on the GPU\ndef solve(a, b, N: int):\n"
        "    BLOCK_SIZE = 256\n    grid = (triton.cdiv(N // 2, BLOCK_SIZE),)\n"
        "    add[grid](a, b, N, BLOCK_SIZE=BLOCK_SIZE)\n"
    )
    found = python_scaffold(triton, "add_kernel", ["a", "b", "n_elements"], ["N"], ["N"])
    assert found.data() == {
        "kernel": "add",
        "parameters": ["a_ptr", "b_ptr", "N"],
        "grid": "N // 2",
        "block_keyword": True,
    }
    local = triton.replace("N // 2", "half")
    assert python_scaffold(local, "add_kernel", ["a", "b", "n_elements"], ["N"], ["N"]) is None
    exploded = "def solve(\n    a: jax.Array,\n    N: int,\n) -> jax.Array:\n    pass\n"
    assert exploded_solve(exploded)
    assert not exploded_solve("def solve(a: jax.Array, N: int) -> jax.Array:\n    pass\n")


def test_a_long_python_comment_wraps_before_are_and_check_reads_it_joined():
    from generator.languages import BY_KEY

    pytorch, cuda = BY_KEY["pytorch"], BY_KEY["cuda"]
    long = "# " + ", ".join(f"tensor_number_{i}" for i in range(5)) + " are tensors on the GPU"
    assert len(long) > 100
    head, tail = pytorch.written_comment(long).split("\n")
    assert tail == "# are tensors on the GPU" and len(head) <= 100
    assert (
        pytorch.written_comment("# a, b are tensors on the GPU") == "# a, b are tensors on the GPU"
    )
    assert cuda.written_comment("//" + long[1:]) == "//" + long[1:]


def test_an_old_mojo_helper_shifts_by_a_count_of_the_shifted_type():
    from generator.languages import BY_KEY

    old = (
        "def mix(x: UInt32) -> UInt32:\n    alias K: UInt32 = 3\n"
        "    return (x >> (K * 8)) ^ (x << UInt32(2))\n"
    )
    new = BY_KEY["mojo"].current_helper(old)
    assert "comptime K: UInt32 = 3" in new
    assert "(x >> UInt32(K * 8)) ^ (x << UInt32(2))" in new
