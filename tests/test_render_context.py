"""Typed template contexts: every template name is a context field, and a name or attribute that no
context has is an error (StrictUndefined), not an empty string."""

from __future__ import annotations

import dataclasses

import jinja2
import pytest

from generator import html
from generator.languages import LANGUAGES
from generator.render import (
    ChallengeHtmlContext,
    ChallengePyContext,
    StarterContext,
    challenge_html_context,
    challenge_py_context,
    environment,
    render_template,
)
from generator.spec import load_spec
from tests.conftest import GOLDEN, SPEC_142


@pytest.fixture(scope="module")
def loaded():
    return load_spec(SPEC_142)


def test_contexts_are_the_typed_dataclasses(loaded):
    py = challenge_py_context(loaded.spec)
    page = challenge_html_context(loaded)
    assert isinstance(py, ChallengePyContext) and isinstance(page, ChallengeHtmlContext)
    assert [entry.name for entry in py.signature] == [p.name for p in loaded.spec.signature]
    assert isinstance(page.examples[0], html.MatrixExample)  # 142's example is 2-D


def test_one_dimensional_pages_get_a_pre_example():
    page = challenge_html_context(load_spec(GOLDEN / "specs" / "1_vector_add.yaml"))
    assert isinstance(page.examples[0], html.PreExample)
    assert page.examples[0].pre_lines[0].startswith("Input:  A = ")


@pytest.mark.parametrize("template, make, expected", [
    ("challenge.py.j2", lambda item: challenge_py_context(item.spec), 'name = "RMS Norm Backward"'),
    ("challenge.html.j2", challenge_html_context, "<li>Performance is measured with <code>N"),
])  # fmt: skip
def test_every_top_level_field_is_required_by_strict_undefined(loaded, template, make, expected):
    variables = make(loaded).variables()
    assert expected in render_template(template, variables)  # all present: renders
    for name in variables:
        missing = {k: v for k, v in variables.items() if k != name}
        with pytest.raises(jinja2.UndefinedError):
            render_template(template, missing)


def test_a_missing_attribute_of_a_typed_field_is_an_error(loaded):
    context = challenge_html_context(loaded)
    with pytest.raises(jinja2.UndefinedError):
        environment().from_string("{{ example.pre_lines }}").render(**context.variables())
    py = challenge_py_context(loaded.spec)
    with pytest.raises(jinja2.UndefinedError):
        environment().from_string("{{ performance.no_such_field }}").render(**py.variables())


def test_starter_context_spreads_the_adapters_names_and_refuses_clashes():
    cuda = next(lang for lang in LANGUAGES if lang.key == "cuda")
    context = StarterContext("// c", "int N", "N", None, "N", "", {"includes": ["cuda_fp16.h"]})
    variables = context.variables()
    assert variables["includes"] == ["cuda_fp16.h"] and "language_extras" not in variables
    assert render_template(cuda.template, variables).startswith("#include <cuda_fp16.h>\n")
    clashing = dataclasses.replace(context, language_extras={"comment": "again"})
    with pytest.raises(ValueError, match="redefines comment"):
        clashing.variables()


def test_integer_outputs_render_their_prefill_and_tolerances_as_integers():
    """An int32 output starts 'pre-filled with 123', not 123.0; atol 0 and 1 are written so."""
    from generator.render import tolerance_literal

    py = challenge_py_context(load_spec(GOLDEN / "specs" / "13_histogramming.yaml").spec)
    assert py.make_doc == ", outputs pre-filled with 123"
    assert (py.atol, py.rtol) == ("0", "0")
    values = (0.0, 1.0, 1e-5, 2.5e-3, 1e-3, 1e-4, 0.05)
    assert [tolerance_literal(v) for v in values] == [
        "0", "1", "1e-05", "0.0025", "0.001", "0.0001", "0.05"
    ]  # fmt: skip
