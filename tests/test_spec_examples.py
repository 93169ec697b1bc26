"""Several worked examples: `examples:` (a list) beside `example:` (one), page sections numbered,
each verified against the reference with errors naming the example, `from_example: N`."""

from __future__ import annotations

import pytest

from generator.example_check import verify_example
from generator.render import challenge_html_context, challenge_py_context
from generator.spec import SpecErrors, load_spec_text
from tests.conftest import ROOT

SPEC = ROOT / "tests" / "golden" / "specs" / "1_vector_add.yaml"


def errors_of(text: str, verify: bool = False) -> list:
    with pytest.raises(SpecErrors) as info:
        loaded = load_spec_text(text, "spec.yaml")
        if verify:
            verify_example(loaded)
    return [e.render() for e in info.value.errors]


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def test_sections_are_numbered_titled_and_explained():
    loaded = load_spec_text(SPEC.read_text(), "spec.yaml")
    first, second = challenge_html_context(loaded).examples
    assert (first.title, second.title) == ("Example 1:", "Example 2:")
    assert first.explanation is None
    assert second.explanation == "<p>Each <code>C[i]</code> is <code>A[i] + B[i]</code>.</p>"
    assert second.pre_lines[-1] == "Output: C = [0.75, 0.0, -2.0]"
    titled = "  - title: Example 2\n    scalars: {N: 3}"
    text = SPEC.read_text().replace("  - scalars: {N: 3}", titled)
    second = challenge_html_context(load_spec_text(text, "spec.yaml")).examples[1]
    assert second.title == "Example 2"


def test_generate_example_test_is_the_first_and_from_example_2_the_second():
    context = challenge_py_context(load_spec_text(SPEC.read_text(), "spec.yaml").spec)
    assert "N = 4" in context.example.lines
    case = next(c for c in context.cases if c.comment == "second_example")
    assert case.lines[0] == "N = 3" and "[0.5, -1.0, 2.0]" in case.lines[1]
    first = next(c for c in context.cases if c.comment == "example")
    assert first.call == "self.generate_example_test()"


def test_a_wrong_output_names_its_example_at_its_line():
    text = SPEC.read_text().replace("C: [0.75, 0.0, -2.0]", "C: [0.75, 0.5, -2.0]")
    (error,) = errors_of(text, verify=True)
    assert error.startswith(f"spec.yaml:{line_of(text, 'C: [0.75, 0.5')}:")
    assert "example 2: expected C[1] = 0.5, but the reference computes 0" in error


def test_a_bad_shape_in_the_second_example_is_positioned_there():
    text = SPEC.read_text().replace("A: [0.5, -1.0, 2.0]", "A: [0.5, -1.0]")
    (error,) = errors_of(text)
    assert error.startswith(f"spec.yaml:{line_of(text, 'A: [0.5, -1.0]')}:")
    assert "the signature and example 2's sizes give [3]" in error


def test_from_example_beyond_the_examples_is_refused():
    text = SPEC.read_text().replace("from_example: 2}", "from_example: 3}")
    (error,) = errors_of(text)
    assert error.startswith(f"spec.yaml:{line_of(text, 'from_example: 3')}:")
    assert "from_example: 3 but the spec has 2 example(s)" in error
    text = SPEC.read_text().replace("from_example: 2}", "from_example: 0}")
    assert any("from_example is true or an example's number" in e for e in errors_of(text))


def test_one_example_is_still_written_example_and_positioned_so():
    single = ROOT / "tests" / "golden" / "specs" / "58_fp16_dot_product.yaml"
    text = single.read_text()
    assert "\nexample:\n" in text
    loaded = load_spec_text(text, "spec.yaml")
    assert len(loaded.spec.examples) == 1
    assert challenge_html_context(loaded).examples[0].title == "Example"
    broken = text.replace("\nexample:\n  scalars:", "\nexample:\n  scalarz:", 1)
    found = errors_of(broken)
    assert any(
        e.startswith(f"spec.yaml:{line_of(broken, 'scalarz')}:") and "unknown field" in e
        for e in found
    )


def test_example_and_examples_together_are_refused():
    text = SPEC.read_text().replace("examples:\n", "example: {scalars: {N: 1}}\nexamples:\n", 1)
    assert any(
        "give 'example' (one) or 'examples' (a list), not both" in e for e in errors_of(text)
    )


def test_every_example_starts_its_outputs_as_prefill_says():
    """A reference that writes only part of C matches the second example only from zeros."""
    text = (
        SPEC.read_text()
        .replace("  torch.add(A, B, out=C)\n", "  keep = A + B > 0\n  C[keep] = (A + B)[keep]\n")
        .replace("C: [0.75, 0.0, -2.0]", "C: [0.75, 0.0, 0.0]")
    )
    zeroed = text.replace("\nexamples:\n", "\nprefill: zeros\n\nexamples:\n", 1)
    verify_example(load_spec_text(zeroed, "spec.yaml"))
    errors = errors_of(text, verify=True)
    assert len(errors) == 1
    assert (
        "example 2: expected C[1] = 0, but the reference never writes it: it still holds NaN"
        in errors[0]
    )
    filled = text.replace("\nexamples:\n", "\nprefill: -1.0\n\nexamples:\n", 1)
    (error,) = errors_of(filled, verify=True)
    assert (
        "expected C[1] = 0, but the reference never writes it: it still holds -1, the prefill"
        in error
    )
