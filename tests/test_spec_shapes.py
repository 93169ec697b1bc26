"""Shapes that are expressions of the sizes: positioned errors, per-case shapes, large examples."""

from __future__ import annotations

import pytest

from generator.render import challenge_html_context, challenge_py_context
from generator.spec import SpecErrors, load_spec_text
from tests.conftest import ROOT

SPEC = ROOT / "tests" / "golden" / "specs" / "901_channel_pair_sum.yaml"


def errors_of(text: str) -> list:
    with pytest.raises(SpecErrors) as info:
        load_spec_text(text, "spec.yaml")
    return [e.render() for e in info.value.errors]


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


@pytest.mark.parametrize(
    "old, new, expect",
    [
        ("shape: [B, 2 * C, L]", "shape: [B, 2 * D, L]", "names 'D', which is not a scalar"),
        ("shape: [B, 2 * C, L]", "shape: [B, 2 ** C, L]", "integers, size names, + - * // %"),
        ("shape: [B, 2 * C, L]", "shape: [B, 2 * C), L]", "not an arithmetic expression"),
        ("shape: [B, 2 * C, L]", "shape: [B, 2.5 * C, L]", "2.5 is not an integer"),
        ("shape: [B, 2 * C, L]", "shape: [B, 2 * C * L // (L - 3), L]", "division by zero for the"),
        ("shape: [B, 2 * C, L]", "shape: [B, 2 * C - 5, L]", "is -1, a negative dimension"),
    ],
)
def test_bad_dimensions_point_at_the_dimension(old, new, expect):
    text = SPEC.read_text().replace(old, new)
    (error,) = errors_of(text)
    assert expect in error
    assert error.startswith(f"spec.yaml:{line_of(text, new)}:")
    column = int(error.split(":")[2])
    assert text.splitlines()[line_of(text, new) - 1][column - 1 :].startswith(new.split(", ")[1])


def test_a_float_scalar_is_no_size():
    text = SPEC.read_text().replace("{name: L, dtype: int32}", "{name: L, dtype: float32}")
    expected = "a float32 scalar; dimensions use sizes (int32 or size_t) only"
    assert any(expected in e for e in errors_of(text))


def test_case_shapes_are_checked_where_they_are_written():
    text = SPEC.read_text().replace("shapes: {x: [B * 2 * C * L]}", "shapes: {z: [B], x: [L - 20]}")
    found = errors_of(text)
    assert any("'z' is not a tensor parameter" in e for e in found)
    negative = [e for e in found if "negative" in e]
    assert negative and "case 'flat_input' (B=3, C=4, L=16)" in negative[0]
    assert negative[0].startswith(f"spec.yaml:{line_of(text, 'L - 20')}:")


def test_outputs_passed_in_another_shape_are_viewed_and_asserted_both_ways():
    text = SPEC.read_text().replace(
        "shapes: {x: [B * 2 * C * L]}", "shapes: {x: [B * 2 * C * L], total: [1]}"
    )
    context = challenge_py_context(load_spec_text(text, "spec.yaml").spec)
    assert "total.shape in ((), (1,))" in context.assertions
    flat = context.cases[-1]
    assert flat.lines[-1] == 'case["total"] = case["total"].view(1,)' and flat.call == "case"


def test_an_example_over_4096_elements_is_summarised_by_its_shapes():
    data = [[float(i % 7) for i in range(100)] for _ in range(42)]  # 4,200 elements
    text = SPEC.read_text()
    start, end = text.index("example:"), text.index("defaults:")
    pairs = list(zip(data[::2], data[1::2]))
    y = [[even[i] + odd[i] for i in range(0, 100, 2)] for even, odd in pairs]
    example = (
        "example:\n  scalars: {B: 1, C: 21, L: 100}\n  inputs:\n"
        f"    x: [{data}]\n  outputs:\n    y: [{y}]\n    total: {sum(map(sum, y))}\n\n"
    )
    loaded = load_spec_text(text[:start] + example + text[end:], "spec.yaml")
    (section,) = challenge_html_context(loaded).examples
    assert section.pre_lines == [
        "Input:  x.shape     = (1, 42, 100)",
        "        B           = 1",
        "        C           = 21",
        "        L           = 100",
        "Output: y.shape     = (1, 21, 50)",
        "        total.shape = ()",
    ]
    # generate_example_test still returns every value
    (line,) = [x for x in challenge_py_context(loaded.spec).example.lines if x.startswith("x = ")]
    assert line.count(",") >= 4200 - 1
