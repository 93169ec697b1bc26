"""Every number a tensor is filled or drawn with is checked against the tensor's dtype, at its line.

NaN and infinity are float values only; integer dtypes take integers within their range; float16
and bfloat16 take what they can hold; the facts come from generator/dtypes.py. A NaN or infinite
float renders as valid Python (`float("nan")`).
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from generator.dtypes import DTYPES
from generator.render import challenge_py_context, py_number, render_template
from generator.spec import SpecErrors, load_spec_text

GOLDEN_SPECS = Path(__file__).parent / "golden" / "specs"
INT_RANGE = "(give an integer from -2147483648 to 2147483647)"
HALF_RANGE = "(give a number within float16's range, ±65504)"


def spec_text(name: str, old: str, new: str) -> str:
    text = (GOLDEN_SPECS / name).read_text()
    assert old in text, old
    return text.replace(old, new, 1)


def errors_of(text: str) -> list:
    with pytest.raises(SpecErrors) as info:
        load_spec_text(text, "spec.yaml")
    return [e.render() for e in info.value.errors]


HIST = "13_histogramming.yaml"
FP16 = "58_fp16_dot_product.yaml"
ROWS = "202_2d_row_sums.yaml"


@pytest.mark.parametrize(
    "name, old, new, expect",
    [
        (
            HIST, "prefill: 123", "prefill: .nan",
            "spec.yaml:42:10: prefill .nan does not fit 'histogram' (int32): NaN and infinity "
            f"are float values only {INT_RANGE}",
        ),
        (
            HIST, "prefill: 123", "prefill: -.inf",
            "spec.yaml:42:10: prefill -.inf does not fit 'histogram' (int32): NaN and infinity "
            f"are float values only {INT_RANGE}",
        ),
        (
            HIST, "prefill: 123", "prefill: 1.5",
            f"spec.yaml:42:10: prefill 1.5 does not fit 'histogram' (int32): not an integer "
            f"{INT_RANGE}",
        ),
        (
            HIST, "prefill: 123", "prefill: 1.0e12",
            "spec.yaml:42:10: prefill 1000000000000.0 does not fit 'histogram' (int32): out of "
            f"range {INT_RANGE}",
        ),
        (
            HIST, "input: {randint: [0, 16]}", "input: {randint: [0, 3000000000]}",
            "spec.yaml:46:26: randint high - 1 (2999999999) does not fit 'input' (int32): out of "
            f"range {INT_RANGE}",
        ),
        (
            HIST, "inputs: {input: {constant: 3}}", "inputs: {input: {constant: 2.5}}",
            "spec.yaml:52:85: constant 2.5 does not fit 'input' (int32): not an integer "
            f"{INT_RANGE}",
        ),
        (
            HIST, "    histogram: [2, 2, 1]", "    histogram: [2, 2.5, 1]",
            f"spec.yaml:40:20: 2.5 does not fit 'histogram' (int32): not an integer {INT_RANGE}",
        ),
        (
            FP16, "A: {uniform: [-1.0, 1.0]}", "A: {uniform: [-60000.0, 60000.0]}",
            "spec.yaml:45:18: uniform's width (high - low) 120000 exceeds float16's largest value "
            "65504 (draw a narrower range for 'A')",
        ),
        (
            FP16, "A: {uniform: [-1.0, 1.0]}", "A: {uniform: [-1.0, 70000.0]}",
            f"spec.yaml:45:25: uniform bound 70000.0 does not fit 'A' (float16): out of range "
            f"{HALF_RANGE}",
        ),
        (
            FP16, "prefill: 0.0", "prefill: 1.0e5",
            f"spec.yaml:41:10: prefill 100000.0 does not fit 'result' (float16): out of range "
            f"{HALF_RANGE}",
        ),
        (
            FP16, "A: {uniform: [-1.0, 1.0]}", "A: {randint: [-5000, 5]}",
            "spec.yaml:45:19: randint into 'A' (float16) draws integers exactly only within "
            "[-2048, 2048], not -5000 (draw a narrower range)",
        ),
        (
            FP16, "A: {uniform: [-1.0, 1.0]}", "A: {normal: [0.0, 1.0e5]}",
            f"spec.yaml:45:23: normal bound 100000.0 does not fit 'A' (float16): out of range "
            f"{HALF_RANGE}",
        ),
    ],
)  # fmt: skip
def test_a_value_that_does_not_fit_its_dtype_is_refused_at_its_node(name, old, new, expect):
    errors = errors_of(spec_text(name, old, new))
    assert expect in errors, "\n".join(errors)


def test_uniform_and_normal_still_refuse_integer_tensors():
    errors = errors_of(spec_text(HIST, "input: {randint: [0, 16]}", "input: {uniform: [0, 16]}"))
    assert any("uniform draws floats but 'input' is int32 (use randint)" in e for e in errors)


def test_randint_draws_integers_into_a_float_tensor():
    text = spec_text(FP16, "B: {uniform: [-1.0, 1.0]}", "B: {randint: [-3, 4]}")
    py = render_template("challenge.py.j2", challenge_py_context(load_spec_text(text, "s").spec))
    assert "torch.randint(-3, 4, (N,), device=self.device, dtype=torch.float16)" in py
    import torch

    drawn = torch.randint(-3, 4, (64,), dtype=torch.float16)
    assert drawn.dtype == torch.float16 and bool((drawn == drawn.round()).all())


@pytest.mark.parametrize("prefill, spelled", [(".nan", 'float("nan")'), ("-.inf", 'float("-inf")')])
def test_a_non_finite_float_prefill_renders_as_python(prefill, spelled):
    text = spec_text(ROWS, "prefill: -1.0}", f"prefill: {prefill}}}")
    py = render_template("challenge.py.j2", challenge_py_context(load_spec_text(text, "s").spec))
    assert f"torch.full((M,), {spelled}, device=self.device, dtype=torch.float32)" in py
    compile(py, "challenge.py", "exec")


def test_py_number_spells_every_float_as_python():
    for value in (math.nan, math.inf, -math.inf, 1.5, 3):
        assert eval(py_number(value), {}) == value or math.isnan(value)


def test_the_dtype_table_holds_each_dtypes_range_and_kind():
    assert DTYPES["float16"].limits == (-65504.0, 65504.0)
    assert DTYPES["int8"].limits == (-128, 127) and not DTYPES["int8"].is_float
    assert DTYPES["bfloat16"].exact_integers == 256 and DTYPES["float32"].is_float
    assert DTYPES["uint8"].value_problem(-1) == "out of range"
    assert DTYPES["int32"].value_problem(math.nan) == "NaN and infinity are float values only"
    assert DTYPES["float32"].value_problem(math.inf) is None


@pytest.mark.parametrize(
    "new, expect",
    [
        (
            "expected_cases: [6, 9]\n\nfunctional:",
            "spec.yaml:48:17: the spec has 5 functional cases, outside its expected_cases [6, 9] "
            "(add or drop cases, or widen the range)",
        ),
        (
            "expected_cases: [9, 6]\n\nfunctional:",
            "spec.yaml:48:17: expected_cases [9, 6] is no range (give [MIN, MAX])",
        ),
    ],
)
def test_a_spec_states_its_own_case_range(new, expect):
    errors = errors_of(spec_text(HIST, "functional:", new))
    assert expect in errors, "\n".join(errors)
    load_spec_text(spec_text(HIST, "functional:", "expected_cases: [2, 5]\n\nfunctional:"), "s")
