"""The readers of a challenge directory, on our own fixtures: every fact found, at its position."""

from __future__ import annotations

import ctypes
import re
from pathlib import Path

import pytest

from generator.challenge import ctypes_table
from generator.challenge.page import example_values, math_spans, performance_bullet, read_page
from generator.challenge.pyfile import ATTRIBUTES, REQUIRED_METHODS, read_challenge_py
from generator.dtypes import DTYPES, SCALAR_DTYPES, TENSOR_DTYPES
from generator.importer.infer import _scalar_param
from generator.importer.report import Report
from generator.judge.signature import params_from_signature
from generator.spec import load_spec

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "specs" / "142_rms_norm_backward.yaml"
OURS = ROOT / "generated" / "challenges" / "medium" / "142_rms_norm_backward"
SCALED_ADD = (
    ROOT / "tests" / "judge" / "fixtures" / "tree" / "challenges" / "easy" / "9001_scaled_add"
)
PRE_STYLE = ROOT / "tests" / "importer" / "fixtures" / "public_style" / "challenges" / "easy"
SCALE_VECTOR = PRE_STYLE / "201_scale_vector"


def _at(text: str, line: int, col: int) -> str:
    """The text from a 1-based line:column on."""
    return text.splitlines()[line - 1][col - 1 :]


# ------------------------------------------------------------------------------ ctypes table


@pytest.mark.parametrize("name", list(TENSOR_DTYPES))
def test_every_dtype_round_trips_through_the_ctypes_table(name):
    row = DTYPES[name]
    facts = ctypes_table.lookup(row.ctypes_tensor)
    assert facts.is_pointer and row in facts.rows and facts.no_row is None
    assert ctypes_table.lookup(facts.spelling) == facts
    bare = row.ctypes_tensor.replace("ctypes.", "")  # POINTER(c_float), as public files write it
    assert ctypes_table.lookup(bare).spelling == row.ctypes_tensor
    runtime = eval(row.ctypes_tensor, {"ctypes": ctypes})  # noqa: S307 - our own table
    assert ctypes_table.spelling_of(runtime) == row.ctypes_tensor
    if name in SCALAR_DTYPES:
        scalar = ctypes_table.lookup(row.ctypes_scalar)
        assert not scalar.is_pointer and scalar.rows == (row,)


@pytest.mark.parametrize(
    "written, canonical",
    [
        ("ctypes.POINTER(ctypes.c_int32)", "ctypes.POINTER(ctypes.c_int)"),
        ("POINTER(c_ubyte)", "ctypes.POINTER(ctypes.c_uint8)"),
        ("ctypes.c_uint", "ctypes.c_uint32"),
        ("ctypes.c_longlong", "ctypes.c_int64"),
        ("ctypes.POINTER( ctypes.c_long )", "ctypes.POINTER(ctypes.c_int64)"),
        ("torch.Tensor", "torch.Tensor"),
    ],
)
def test_names_of_one_c_type_read_as_one_spelling(written, canonical):
    assert ctypes_table.normalize(written) == canonical


def test_shared_pointers_stand_for_every_row_that_uses_them():
    facts = ctypes_table.lookup("ctypes.POINTER(ctypes.c_uint16)")
    assert [row.name for row in facts.rows] == ["float16", "bfloat16"]


def test_size_t_is_the_size_t_row_under_every_spelling_of_its_c_type():
    facts = ctypes_table.lookup("ctypes.c_size_t")
    assert facts.rows == (DTYPES["size_t"],) and facts.no_row is None
    assert facts.scalar == ctypes_table.CScalar("int", 64, False)
    assert facts.value_row is DTYPES["size_t"] and DTYPES["size_t"].is_size
    # at run time c_size_t is c_ulong: the same C type, so the same facts
    runtime = ctypes_table.lookup(ctypes_table.spelling_of(ctypes.c_size_t))
    assert runtime == facts
    assert ctypes_table.lookup("c_uint64") == facts
    # a size type only: no tensor holds it
    assert ctypes_table.lookup("ctypes.POINTER(ctypes.c_size_t)").rows == ()


def test_every_consumer_represents_size_t_the_same_way():
    facts = ctypes_table.lookup("ctypes.c_size_t")
    read = read_challenge_py((SCALED_ADD / "challenge.py").read_text("utf-8"))
    entry = next(e for e in read.signature if e.name == "N")
    assert entry.facts == facts and entry.dtypes == [DTYPES["size_t"]]
    assert not read.signature_issues  # a size, not an error
    judged = params_from_signature({"N": (ctypes.c_size_t, "in")})[0]
    assert judged.dtype is facts.value_row and judged.ctype is ctypes.c_size_t
    report = Report()
    imported = _scalar_param("N", facts, "in", report)
    assert imported.dtype == "size_t"
    assert not report.lines()  # kept as declared, nothing to say


def test_types_without_a_row_say_why():
    assert "not a ctypes type" in ctypes_table.lookup("torch.Tensor").no_row
    double = ctypes_table.lookup("ctypes.c_double")
    assert double.rows == () and "64-bit" in double.no_row and double.value_row is None


# ------------------------------------------------------------------------------ challenge.py


def test_the_class_its_attributes_and_methods_are_found_where_they_are():
    text = (OURS / "challenge.py").read_text("utf-8")
    read = read_challenge_py(text)
    assert read.cls is not None and read.base_ok and read.classes == ["Challenge"]
    for name in ATTRIBUTES:
        fact = read.attribute_facts[name]
        assert fact.has_literal
        assert _at(text, fact.line, fact.col).startswith(f"{name} = ")
    spec = load_spec(SPEC).spec
    assert read.literal("name") == spec.name
    assert (read.literal("atol"), read.literal("rtol")) == (spec.atol, spec.rtol)
    for name in REQUIRED_METHODS:
        method = read.method(name)
        assert _at(text, method.line, method.col).startswith(f"def {name}(")
        assert method.source.startswith(f"def {name}(")
        assert method.end_line >= method.header_end >= method.line
    assert read.method("reference_impl").params == [p.name for p in spec.signature]
    assert "torch" in read.imports and "ChallengeBase" in read.imports


def test_every_signature_entry_is_found_at_its_key():
    text = (OURS / "challenge.py").read_text("utf-8")
    read = read_challenge_py(text)
    shown = [(e.name, e.ctype, e.direction, e.is_tensor) for e in read.signature]
    expected = []
    for param in load_spec(SPEC).spec.signature:  # what challenge.py was generated from
        row = DTYPES[param.dtype]
        tensor = param.shape is not None
        expected.append(
            (
                param.name,
                row.ctypes_tensor if tensor else row.ctypes_scalar,
                param.direction,
                tensor,
            )
        )
    assert shown == expected
    for entry in read.signature:
        assert _at(text, entry.line, entry.col).startswith(f'"{entry.name}"')
        assert _at(text, entry.direction_line, entry.direction_col).startswith(
            f'"{entry.direction}"'
        )
        assert entry.const == (entry.direction == "in" and entry.is_tensor)
    assert [e.name for e in read.signature if e.const] == [
        name for name, _, direction, tensor in expected if tensor and direction == "in"
    ]


def test_a_syntax_error_is_kept_with_its_position_not_raised():
    read = read_challenge_py("class Challenge:\n    name = (\n", "c.py")
    assert read.module is None and read.syntax_error.lineno == 2
    assert read.cls is None and read.signature is None


def test_a_signature_that_is_not_a_dict_literal_is_an_issue_at_the_method():
    text = "class Challenge:\n    def get_solve_signature(self):\n        return make()\n"
    read = read_challenge_py(text)
    assert read.signature is None
    ((node, message),) = read.signature_issues
    assert node.lineno == 2 and "dict literal" in message


# ------------------------------------------------------------------------------ challenge.html


def test_our_page_sections_items_example_and_bullet():
    text = (OURS / "challenge.html").read_text("utf-8")
    page = read_page(text)
    titles = [h.title for h in page.headings if h.level == 2]
    assert titles == ["Implementation Requirements", "Example", "Constraints"]
    for heading in page.headings:
        assert _at(text, *page.pos(heading.start)).startswith("<h2>")
    (constraints,) = page.sections("constraints")
    items = page.items(constraints)
    assert items[-1].text.startswith("Performance is measured with")
    for item in items:
        assert _at(text, *page.pos(item.start)).startswith("<li>")
    (example,) = page.examples()
    assert example.form == "bmatrix" and example.input_labels == ["\\varepsilon"]
    assert "\\begin{bmatrix}" in _at(text, *page.pos(example.form_offset))
    li, bullet = performance_bullet(page)
    assert li == items[-1].start
    assert [(b.name, b.number) for b in bullet] == [("N", 16384), ("C", 4096)]
    for b in bullet:
        assert _at(text, *page.pos(b.offset)).startswith(f"<code>{b.name}</code>")
    ((start, end),) = page.svgs()
    assert text[start:end].startswith("<svg") and text[start:end].endswith("</svg>")
    assert start < len(page.head)


def test_bmatrix_example_values_keep_their_rows():
    page = read_page((OURS / "challenge.html").read_text("utf-8"))
    shown = example_values(page, page.examples()[0], ["x", "dy", "dx"], ["x", "dy", "dx"])
    assert shown.labelled
    assert {key for key in shown.found} == {("x", False), ("dy", False), ("dx", True)}
    (dx,) = shown.found[("dx", True)]
    assert len(dx.nested) > 1 and all(isinstance(row, list) for row in dx.nested)
    assert [v for row in dx.nested for v in row] == [v for v, _ in dx.values]


def test_pre_examples_give_inputs_and_outputs_at_their_positions():
    text = (SCALE_VECTOR / "challenge.html").read_text("utf-8")
    page = read_page(text)
    examples = page.examples()
    assert [e.heading.title for e in examples] == ["Example 1", "Example 2"]
    assert [e.form for e in examples] == ["pre", "pre"]
    assert examples[0].input_labels == ["x", "scale"]
    shown = example_values(page, examples[0], ["x", "y", "scale"], ["x", "y"])
    assert shown.found[("x", False)][0].nested == [1.0, -2.0, 0.5, 4.0]
    assert shown.found[("scale", False)][0].nested == 2.5
    (y,) = shown.found[("y", True)]
    assert y.nested == [2.5, -5.0, 1.25, 10.0]
    assert _at(text, *page.pos(shown.base + y.offset)).startswith("y = [2.5")


SLICED = """<h2>Example</h2>
<pre>
Input:  x[0] = [[1, 2]]
        x[1] = [[3, 4]]
Output: y[0] = [[2, 4]]
        y[1] = [[6, 8]]
Steps:  t=0: 2 * x[0] -> y[0] = [[9, 9]]
</pre>
"""


def test_a_tensor_written_slice_by_slice_is_read_whole():
    page = read_page(SLICED)
    shown = example_values(page, page.examples()[0], ["x", "y"], ["x", "y"])
    assert shown.found[("x", False)][0].nested == [[[1, 2]], [[3, 4]]]
    # a slice inside a derivation line is no data: y is its two leading slices alone
    assert [s.nested for s in shown.found[("y", True)]] == [[[[2, 4]], [[6, 8]]]]
    assert _at(SLICED, *page.pos(shown.base + shown.found[("x", False)][0].offset)).startswith(
        "x[0] = [[1, 2]]"
    )


def test_an_aligned_bmatrix_example_names_its_matrices_and_scalars():
    text = (
        "<h2>Example</h2>\n<p>\nInput:\n\\[\n\\begin{align*}\nN &= 2, \\quad k = -0.5 \\\\[1em]\n"
        "A &= \\begin{bmatrix} 1.0 & 2.0 \\end{bmatrix}\n\\end{align*}\n\\]\n</p>\n"
    )
    page = read_page(text)
    shown = example_values(page, page.examples()[0], ["A", "N", "k"], ["A", "N", "k"])
    assert shown.found[("A", False)][0].nested == [[1.0, 2.0]]
    assert shown.found[("N", False)][0].nested == 2 and shown.found[("k", False)][0].nested == -0.5


def test_math_spans_skip_literal_regions_and_know_display_math():
    text = "<p>\\(a\\) <code>\\(b\\)</code></p>\n<pre>\\[c\\]</pre>\n\\[d\\] \\(e"
    spans = math_spans(read_page(text))
    assert [(s.content, s.display) for s in spans] == [("a", False), ("d", True), ("e", False)]
    assert spans[-1].end == -1  # never closed
    start, end = spans[1].outer
    assert text[start:end] == "\\[d\\]"


def test_text_after_a_list_is_found():
    page = read_page("<h2>Constraints</h2>\n<ul><li>a</li></ul>\n<p>late</p>\n")
    (heading,) = page.sections("constraints")
    assert page.after_list(heading).strip() == "<p>late</p>"
    assert re.fullmatch(
        r"\s*",
        read_page("<h2>Constraints</h2><ul></ul>").after_list(
            read_page("<h2>Constraints</h2><ul></ul>").sections("constraints")[0]
        ),
    )
