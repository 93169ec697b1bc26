"""pydantic's errors in chgen's words: the field as written, at its node, with what to do, and
"did you mean" for a near miss; every spec error carries a hint."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from generator.spec import messages, read, rules
from tests.test_spec_errors import base_text, line_of, load_errors

#: (text in the 142 spec, the author's mistake, the line it is on, message, hint)
MISTAKES = [
    (
        "{name: dx, dtype: float32, direction: out,",
        "{name: dx, dtype: float32, direction: outt,",
        "direction: outt",
        "signature.direction is 'outt'; it must be 'in', 'out' or 'inout'",
        "(did you mean 'out'?)",
    ),
    (
        "difficulty: medium",
        "difficulty: meduim",
        "difficulty: meduim",
        "difficulty is 'meduim'; it must be 'easy', 'medium' or 'hard'",
        "(did you mean 'medium'?)",
    ),
    (
        "{name: dx, dtype: float32, direction: out, shape:",
        "{name: dx, dtype: float32, direction: out, shap:",
        "shap:",
        "unknown field 'shap'",
        "(did you mean 'shape'?)",
    ),
    (
        "  - name: single_element\n",
        "  - name: single_element\n    sead: 3\n",
        "sead: 3",
        "unknown field 'sead'",
        "(did you mean 'seed'?)",
    ),
    (
        "prefill: 123.0",
        "prefill: zero",
        "prefill: zero",
        "prefill is 'zero'; it must be 'empty', 'zeros' or a number",
        "(did you mean 'zeros'?)",
    ),
    (
        "x: {normal: [0.0, 1.0]}",
        "x: {nromal: [0.0, 1.0]}",
        "nromal",
        "defaults.inputs.x: unknown input form 'nromal'",
        "(did you mean 'normal'?)",
    ),
    (
        "{name: dx, dtype: float32,",
        "{name: dx, dtype: flaot32,",
        "flaot32",
        "signature.dtype: tensor dtype 'flaot32' is unknown",
        "(did you mean 'float32'?)",
    ),
    ("atol: 1.0e-3", "atol: fast", "atol: fast", "atol is 'fast'; it must be a number", "(e.g."),
    ("num_gpus: 1", "num_gpus: 0", "num_gpus: 0", "num_gpus is 0; it must be at least 1", "(use"),
]


@pytest.mark.parametrize("old, new, needle, message, hint", MISTAKES)
def test_a_mistake_is_named_in_chgen_words_at_its_line(old, new, needle, message, hint):
    text = base_text()
    assert old in text, old
    broken = text.replace(old, new, 1)
    errors = load_errors(broken)
    assert len(errors) == 1, errors  # a union's members are one error, not one each
    line = line_of(broken, needle)
    assert errors[0].startswith(f"spec.yaml:{line}:"), errors
    assert message in errors[0] and hint in errors[0], errors
    assert "Input should" not in errors[0]


def test_a_misspelled_top_level_field_is_named_with_its_neighbour():
    broken = base_text().replace("num_gpus: 1", "num_gpu: 1", 1)
    assert any(
        "unknown field 'num_gpu' (did you mean 'num_gpus'?)" in e for e in load_errors(broken)
    )


def test_an_unknown_field_with_no_near_miss_lists_the_fields():
    broken = base_text().replace(
        "  - name: single_element\n", "  - name: single_element\n    q: 1\n"
    )
    (error,) = load_errors(broken)
    assert "unknown field 'q' (remove it; the fields here are name, note, from_example" in error


def test_an_example_of_the_wrong_shape_says_what_to_do():
    broken = base_text().replace("dweight: [3.0, -1.0, 1.0, -1.0]", "dweight: [3.0, -1.0, 1.0]")
    (error,) = load_errors(broken)
    assert "has shape [3]" in error and "(make the literal match that shape" in error


@pytest.mark.parametrize("old, new, needle, message, hint", MISTAKES)
def test_every_error_has_a_hint(old, new, needle, message, hint):
    from generator.spec import SpecErrors, load_spec_text

    with pytest.raises(SpecErrors) as info:
        load_spec_text(base_text().replace(old, new, 1), "spec.yaml")
    assert all(error.hint for error in info.value.errors), info.value


def test_no_spec_check_is_written_without_a_hint():
    """Each cross-field issue (a 3-tuple) and each SpecError of the reader, the pydantic wording
    and the section rules names what to do."""
    files = [Path(read.__file__), Path(messages.__file__)]
    files += sorted(Path(rules.__file__).parent.glob("*.py"))
    bare = []
    for node in (n for f in files for n in ast.walk(ast.parse(f.read_text(encoding="utf-8")))):
        if isinstance(node, ast.Yield) and isinstance(node.value, ast.Tuple):
            last = node.value.elts[-1]
            if len(node.value.elts) == 3 and isinstance(last, ast.Constant) and not last.value:
                bare.append(node.lineno)
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "SpecError":
            if len(node.args) + len(node.keywords) < 3:
                bare.append(node.lineno)
    assert bare == [], f"spec checks without a hint: {bare}"
