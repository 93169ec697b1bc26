"""Every `page:` layout flag survives the page: the spec is rendered with the flag set, the page is
read back (challenge/page.py's page_layout, what `chgen import` keeps), and the flags read are the
flags written. One property per flag, its values drawn by hypothesis, the other flags at their
defaults (generator/page/ holds each family's writer beside its reader)."""

from __future__ import annotations

from typing import Any, Dict

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generator.challenge.page import page_layout, read_page
from generator.page.headings import GAP_SECTIONS
from generator.render import render_page
from generator.spec import load_spec_text
from generator.spec.model import PageForm
from tests.conftest import GOLDEN

FLAGS = settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)
#: a 1-D challenge whose example is a <pre> (two inputs, one output, the size N)
PRE_SPEC = GOLDEN / "specs" / "1_vector_add.yaml"
#: a 2-D challenge whose example is a bmatrix (sizes rows and cols)
MATRIX_SPEC = GOLDEN / "specs" / "3_matrix_transpose.yaml"
DEFAULTS = PageForm().model_dump()

spaces = st.integers(min_value=0, max_value=6).map(lambda n: " " * n)


def _spec(path, page: Dict[str, Any], example: Dict[str, Any] = None) -> Dict[str, Any]:
    data = yaml.safe_load(path.read_text())
    data["page"] = page
    if example:
        key = "example" if "example" in data else "examples"
        first = data[key] if key == "example" else data[key][0]
        first.update(example)
    return data


def _read_back(data: Dict[str, Any]) -> Dict[str, Any]:
    loaded = load_spec_text(yaml.safe_dump(data, sort_keys=False), "spec.yaml")
    page = read_page(render_page(loaded))
    return page_layout(page, page.examples())


def _written(family: Dict[str, Any], defaults: Dict[str, Any]) -> Dict[str, Any]:
    """The flags that differ from their defaults: what a reader can see and keeps."""
    return {key: value for key, value in family.items() if value != defaults[key]}


def _items(path) -> int:
    data = yaml.safe_load(path.read_text())
    return len(data["requirements"]) + len(data["constraints"])


# ------------------------------------------------------------------ lists


@FLAGS
@given(indent=spaces)
def test_item_indent(indent):
    read = _read_back(_spec(PRE_SPEC, {"item_indent": indent}))
    assert read == _written({"item_indent": indent}, DEFAULTS)


@FLAGS
@given(indents=st.lists(spaces, min_size=_items(PRE_SPEC), max_size=_items(PRE_SPEC)))
def test_item_indents(indents):
    read = _read_back(_spec(PRE_SPEC, {"item_indents": indents}))
    if len(set(indents)) > 1:
        assert read == {"item_indents": indents}
    else:  # one indentation for all is item_indent
        assert read == _written({"item_indent": indents[0]}, DEFAULTS)


# ------------------------------------------------------------------ headings


@FLAGS
@given(indent=spaces)
def test_indent(indent):
    read = _read_back(_spec(MATRIX_SPEC, {"indent": indent}))
    assert read == _written({"indent": indent}, DEFAULTS)


@FLAGS
@given(sections=st.lists(st.sampled_from([s for s, _ in GAP_SECTIONS]), unique=True))
def test_heading_gap(sections):
    read = _read_back(_spec(PRE_SPEC, {"heading_gap": sections}))
    in_order = [s for s, _ in GAP_SECTIONS if s in sections]
    assert read == ({"heading_gap": in_order} if sections else {})


@FLAGS
@given(gaps=st.lists(st.integers(min_value=0, max_value=3), min_size=4, max_size=4))
def test_section_gaps(gaps):  # 1_vector_add has two examples: four standard sections
    read = _read_back(_spec(PRE_SPEC, {"section_gaps": gaps}))
    assert read == ({"section_gaps": gaps} if any(g != 1 for g in gaps) else {})


@FLAGS
@given(
    ends=st.lists(
        st.sampled_from(["</h2>", "</h2 >", "</h2  >", "</h2\t>"]), min_size=4, max_size=4
    )
)
def test_heading_ends(ends):  # four standard sections, as above
    read = _read_back(_spec(PRE_SPEC, {"heading_ends": ends}))
    assert read == ({"heading_ends": ends} if any(e != "</h2>" for e in ends) else {})


# ------------------------------------------------------------------ pre

PRE_DEFAULTS = DEFAULTS["pre"]


def _pre_round_trip(flags: Dict[str, Any]) -> None:
    read = _read_back(_spec(PRE_SPEC, {"pre": flags}))
    written = _written(flags, PRE_DEFAULTS)
    assert read == ({"pre": written} if written else {})


@FLAGS
@given(tight=st.booleans())
def test_pre_tight(tight):
    _pre_round_trip({"tight": tight})


@FLAGS
@given(aligned=st.booleans())
def test_pre_aligned(aligned):
    _pre_round_trip({"aligned": aligned})


@FLAGS
@given(unnamed=st.lists(st.just("output"), unique=True))
def test_pre_unnamed(unnamed):  # the Output part has a sole tensor (the Input part has two)
    _pre_round_trip({"unnamed": unnamed})


@FLAGS
@given(inline=st.booleans())
def test_pre_inline(inline):
    _pre_round_trip({"inline": inline})


@FLAGS
@given(indent=spaces)
def test_pre_indent(indent):
    _pre_round_trip({"indent": indent})


@FLAGS
@given(size_note=st.booleans())
def test_pre_size_note(size_note):
    _pre_round_trip({"size_note": size_note})


# ------------------------------------------------------------------ matrix

MATRIX_DEFAULTS = DEFAULTS["matrix"]


def _matrix_round_trip(flags: Dict[str, Any], example: Dict[str, Any] = None) -> None:
    read = _read_back(_spec(MATRIX_SPEC, {"matrix": flags}, example))
    written = _written(flags, MATRIX_DEFAULTS)
    assert read == ({"matrix": written} if written else {})


@FLAGS
@given(strong=st.booleans())
def test_matrix_strong(strong):
    _matrix_round_trip({"strong": strong})


@FLAGS
@given(split=st.booleans())
def test_matrix_split(split):
    _matrix_round_trip({"split": split})


@FLAGS
@given(gap=st.booleans())
def test_matrix_gap(gap):  # a gap between the parts of a split example
    _matrix_round_trip({"gap": gap})


@FLAGS
@given(labels=st.sampled_from(["code", "latex"]))
def test_matrix_labels(labels):
    _matrix_round_trip({"labels": labels})


@FLAGS
@given(times=st.sampled_from(["&times;", "×"]))
def test_matrix_times(times):
    _matrix_round_trip({"times": times})


@FLAGS
@given(indent=spaces)
def test_matrix_indent(indent):
    _matrix_round_trip({"indent": indent})


@FLAGS
@given(inline=st.booleans())
def test_matrix_inline(inline):  # two scalars listed, so that there is a line to join
    _matrix_round_trip({"inline": inline}, {"shown": ["rows", "cols"]})


# ------------------------------------------------------------------ the example forms


def test_each_example_form_is_read_as_the_form_written():
    """The writer's form of each golden example (pre, matrix, summary) is the form the reader
    finds on the rendered page (a summary is a <pre> block)."""
    from generator.page.vocabulary import FOUND_AS
    from generator.spec import load_spec
    from generator.spec.example_page import example_form

    seen = set()
    for path in sorted((GOLDEN / "specs").glob("*.yaml")):
        loaded = load_spec(path)
        written = [example_form(loaded.spec, ex) for ex in loaded.spec.examples]
        read = [e.form for e in read_page(render_page(loaded)).examples()]
        assert read == [FOUND_AS[form] for form in written], path.name
        seen.update(written)
    assert {"pre", "matrix"} <= seen
