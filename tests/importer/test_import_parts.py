"""The importer's parts on small inputs: YAML writing, page reading, source reading, recipes."""

from __future__ import annotations

import importlib.util
import textwrap

import pytest
import torch
import yaml

from generator.challenge.case_names import comment_above
from generator.importer import html as page
from generator.importer import infer, pyast, writer
from generator.importer.infer import ParamInfo
from generator.importer.report import ImportFailure
from generator.importer.trace import Traced, Tracer, output_start, recipe_of, run_cases, same_start
from generator.resources import template_dir

# ------------------------------------------------------------------------------ the writer


@pytest.mark.parametrize(
    "value, text",
    [(1e-05, "1.0e-05"), (0.001, "0.001"), (1e20, "1.0e+20"), (-0.5, "-0.5"), (3, "3")],
)
def test_numbers_read_back_as_numbers(value, text):
    assert writer.number(value) == text
    assert yaml.safe_load(f"k: {text}") == {"k": value}


@pytest.mark.parametrize(
    "value",
    [
        "plain words",
        "edge: 2x2, all zeros",
        "# not a comment",
        "'quoted'",
        " leading space",
        "1 &le; <code>N</code> &le; 100,000,000",
        "yes",
        "1e-5",
        "\\varepsilon",
        "a {brace} and [bracket]",
        "mixed ' and \" quotes",
    ],
)
def test_strings_read_back_unchanged_in_block_and_flow(value):
    assert yaml.safe_load(f"k: {writer.string(value)}") == {"k": value}
    assert yaml.safe_load(f"{{k: {writer.string(value, flow=True)}}}") == {"k": value}


def test_dump_spec_wraps_long_literals_and_reads_back():
    data = {
        "id": 7,
        "slug": "demo",
        "reference": "  indented first line\nx = 1\n",
        "description": "<p>\n  text: with colon # and hash\n</p>\n",
        "example": {
            "scalars": {"N": 64},
            "inputs": {"x": [float(i) / 3 for i in range(64)]},
            "outputs": {"y": [[float(i)] * 16 for i in range(4)]},
        },
        "functional": [{"name": "a", "note": "b: c", "scalars": {"N": 1}}],
    }
    text = writer.dump_spec(data, ["first comment", "second: with colon"])
    assert text.startswith("# first comment\n# second: with colon\n")
    assert max(len(line) for line in text.splitlines()) <= writer.WIDTH
    assert yaml.safe_load(text) == data


def test_dump_spec_refuses_fields_it_does_not_know():
    with pytest.raises(writer.WriteError):
        writer.dump_spec({"id": 1, "unknown_field": 2}, [])


# ---------------------------------------------------------------------------- the page reader

PRE_PAGE = """<p>
  Add.
</p>
<svg viewBox="0 0 1 1"><rect/></svg>

<h2>Implementation Requirements</h2>
<ul>
  <li>External libraries are
      not permitted</li>
</ul>

<h2>Example 1:</h2>
<pre>
Input:  A = [1.0, 2.0]
        N = 2
        \\alpha = 0.5
Output: C = [1.5, 3.0]  (approximately)
</pre>

<h2>Example 2:</h2>
<pre>
Output: C = [9.0]
</pre>

<h2>Notes</h2>
<p>extra</p>

<h2>Constraints</h2>
<ul>
  <li>1 &le; <code>N</code></li>
  <li>Performance is measured with <code>N</code> = 25,000,000</li>
</ul>
"""


def test_pre_pages_give_texts_outputs_and_labels():
    found = page.read_page(PRE_PAGE, ["C"])
    assert found.description == "<p>\n  Add.\n</p>"
    assert found.svg == '<svg viewBox="0 0 1 1"><rect/></svg>'
    assert found.requirements == ["External libraries are\n      not permitted"]  # as broken
    assert found.constraints == ["1 &le; <code>N</code>"]
    assert found.performance == {"N": 25000000}
    assert found.example_outputs == {"C": [1.5, 3.0]}
    assert found.scalar_labels == ["A", "N", "\\alpha"]
    assert not found.matrix
    # a section of the page's own is kept, after the standard section it follows
    assert [s.data() for s in found.sections] == [
        {"title": "Notes", "after": "examples", "html": "<p>extra</p>\n"}
    ]
    # every example is read, with its heading as written
    assert [e.title for e in found.examples] == ["Example 1:", "Example 2:"]
    assert found.examples[1].shown.found[("C", True)][0].nested == [9.0]


def test_matrix_pages_give_outputs_by_label():
    body = """<p>a</p>
<h2>Example</h2>
<p>
Input:<br>
\\(\\text{x}\\) (N=1, C=2):
\\[
\\begin{bmatrix}
1.0 & 2.0
\\end{bmatrix}
\\]
\\(\\varepsilon\\) = 1e-5<br>
<br>
Output:<br>
\\(\\text{y}\\) (N=1, C=2):
\\[
\\begin{bmatrix}
0.5 & -1e-3 \\\\
2.0 & 3.0
\\end{bmatrix}
\\]
</p>
<h2>Constraints</h2>
<ul></ul>
"""
    found = page.read_page(body, ["y"])
    assert found.matrix
    assert found.example_outputs == {"y": [[0.5, -0.001], [2.0, 3.0]]}
    assert found.scalar_labels == ["\\varepsilon"]
    assert any("no performance bullet" in n for n in found.notes)


# ------------------------------------------------------------------------- the source reader

SOURCE = '''
import ctypes
import math
from ctypes import POINTER, c_float

import torch
from core.challenge_base import ChallengeBase

SCALE = 2


class Challenge(ChallengeBase):
    name = "Demo"
    atol = 1e-05
    rtol = 1e-05

    def reference_impl(
        self, A: torch.Tensor, B: torch.Tensor, N: int
    ):
        """Docstring."""
        assert A.shape == B.shape == (N,)
        assert A.dtype == torch.float32
        assert A.device == B.device
        assert N > 0
        # keep this comment
        B.copy_(A * math.pi * SCALE)

    def get_solve_signature(self):
        return {"A": (POINTER(c_float), "in"), "B": (ctypes.POINTER(ctypes.c_float), "out"),
                "N": (ctypes.c_size_t, "in")}

    def generate_functional_test(self):
        tests = []
        # first: note one
        tests.append(1)
        for _, n in [("alpha", 1), ("beta", 2)]:
            tests.append(n)
        return tests
'''


def test_source_reader_keeps_the_body_and_drops_device_asserts():
    source = pyast.read_source(SOURCE)
    ref = source.reference
    assert ref.body == (
        '"""Docstring."""\nassert A.shape == B.shape == (N,)\nassert A.dtype == torch.float32\n'
        "assert N > 0\n# keep this comment\nB.copy_(A * math.pi * SCALE)"
    )
    assert ref.docstring
    assert ref.dropped_asserts == ["assert A.device == B.device"]
    assert ref.shape_hints == {"A": ["N"], "B": ["N"]}
    assert ref.free_names == {"math", "SCALE"}
    assert source.imports["math"] == "import math"
    assert "SCALE" in source.module_names
    assert [(e.name, e.ctype) for e in source.signature] == [
        ("A", "ctypes.POINTER(ctypes.c_float)"),
        ("B", "ctypes.POINTER(ctypes.c_float)"),
        ("N", "ctypes.c_size_t"),
    ]
    layout = source.functional
    assert layout.loop_names == {2: ["alpha", "beta"]}
    above = comment_above(layout.comments, layout.body_lines[1][0], layout.def_line)
    assert above == "first: note one"


@pytest.mark.parametrize(
    "line, regenerated",
    [
        ("assert x.shape == (N, C)", True),
        ("assert x.shape[0] == N and x.dtype == torch.float16", True),
        ("assert x.numel() == N", True),
        ("assert N > 0", False),
        ("assert x.is_contiguous()", False),
        ("assert (x >= 0).all()", False),
    ],
)
def test_only_shape_dtype_device_asserts_are_regenerated(line, regenerated):
    node = pyast.ast.parse(line).body[0]
    assert pyast.is_regenerated_assert(node) is regenerated


# ------------------------------------------------------------------- recipes and distributions

FLOAT = ParamInfo("x", "float32", "in", True, ["N"])


def traced(fn):
    with Tracer():
        return fn()


def drawn(tensor, earlier=None, param=FLOAT):
    return infer.distribution(param, tensor, recipe_of(tensor), earlier or {})


def test_recipes_become_the_distributions_that_redraw_them():
    assert drawn(traced(lambda: torch.empty(8).uniform_(-2, 3))).dist == {"uniform": [-2.0, 3.0]}
    assert drawn(traced(lambda: torch.rand(8))).dist == {"uniform": [0.0, 1.0]}
    assert drawn(traced(lambda: torch.randn(4, 2))).dist == {"normal": [0.0, 1.0]}
    assert drawn(traced(lambda: torch.zeros(5))).dist == {"constant": 0.0}
    assert drawn(traced(lambda: torch.full((5,), 2.5))).dist == {"constant": 2.5}
    assert drawn(traced(lambda: torch.tensor([0.1, 0.2]))).dist == {"values": [0.1, 0.2]}
    assert drawn(traced(lambda: torch.tensor([7.0] * 100))).dist == {"constant": 7.0}
    ints = ParamInfo("k", "int32", "in", True, ["N"])
    made = traced(lambda: torch.randint(0, 9, (6,), dtype=torch.int32))
    assert drawn(made, param=ints).dist == {"randint": [0, 9]}


def test_a_scaled_source_plus_noise_is_correlated():
    def make():
        x = torch.empty(4, 3).normal_(0.0, 1.0)
        return x, 0.5 * x + torch.empty(4, 3).normal_(0.0, 2.0)

    x, dy = traced(make)
    found = drawn(dy, {"x": x})
    assert found.exact and found.dist == {
        "correlated": {"source": "x", "scale": 0.5, "noise": [0.0, 2.0]}
    }


def test_unknown_code_is_approximated_by_the_range_drawn():
    big = traced(lambda: torch.randn(1000).abs())
    found = drawn(big)
    assert not found.exact and "abs" in found.problem
    low, high = found.dist["uniform"]
    assert low == pytest.approx(float(big.min())) and high == pytest.approx(float(big.max()))
    small = traced(lambda: torch.arange(6, dtype=torch.float32) * 0.5)
    assert drawn(small).dist == {"values": [0.0, 0.5, 1.0, 1.5, 2.0, 2.5]}
    uninitialised = traced(lambda: torch.empty(100))
    assert "uninitialised" in drawn(uninitialised).problem


def tensor_and_two_sizes():
    return [
        ParamInfo("a", "float32", "in", True),
        ParamInfo("M", "int32", "in", False),
        ParamInfo("N", "int32", "in", False),
    ]


def traced_case(m, n, shape):
    """A traced case of `tensor_and_two_sizes`: a zero tensor of `shape` and the two sizes."""
    return Traced({"a": torch.zeros(shape), "M": m, "N": n}, {})


def test_shapes_take_the_size_that_matches_in_every_case():
    params = tensor_and_two_sizes()
    cases = [("one", traced_case(2, 2, (2, 2))), ("two", traced_case(3, 5, (3, 5)))]
    infer.infer_shapes(params, cases, {})
    assert params[0].shape == ["M", "N"]
    # a hint from the reference's asserts settles a tie
    params[0].shape = None
    infer.infer_shapes(params, cases[:1], {"a": ["N", "M"]})
    assert params[0].shape == ["N", "M"]
    with pytest.raises(ImportFailure, match="equals no expression of the sizes"):
        infer.infer_shapes(params, [("three", traced_case(3, 5, (3, 10))), *cases[1:]], {})


def test_derived_shapes_take_the_asserted_expression_or_a_small_one_that_fits():
    params = tensor_and_two_sizes()
    cases = [("one", traced_case(2, 3, (6, 1))), ("two", traced_case(4, 5, (20, 2)))]
    infer.infer_shapes(params, cases, {})
    assert params[0].shape == ["M * N", "M // 2"]
    infer.infer_shapes(params, cases, {"a": ["N*M", "M-N+1"]})  # as the reference asserts it
    assert params[0].shape == ["N * M", "M // 2"]  # the assert's M-N+1 does not fit: searched
    # a case passing another rank than the example keeps its own shape
    flat = [("example", traced_case(2, 3, (2, 3))), ("flat", traced_case(4, 5, (20,)))]
    infer.infer_shapes(params, flat, {})
    assert params[0].shape == ["M", "N"] and params[0].case_shapes == {"flat": ["M * N"]}


def test_case_names_come_from_comments_or_loop_labels():
    names, notes = infer.finish_names(["single: one row", "zero_x: zeros", None], [None] * 3)
    assert names == ["single", "zero_x", "case_3"] and notes == ["one row", "zeros", None]
    names, notes = infer.finish_names(["edge: a", "edge: b"], [None, None])
    assert names == ["edge_a", "edge_b"] and notes == ["edge: a", "edge: b"]
    names, _ = infer.finish_names([None, None, None], ["Tail 1", "tail-1", "x"])
    assert names == ["tail_1", "tail_1_2", "x"]


def test_slugs_are_valid_case_names():
    assert infer.slugify("Test 1: Small input!") == "test_1_small_input"
    assert infer.slugify("4x4 grid") == "case_4x4_grid"
    assert infer.slugify("***") == ""


def test_dedented_reference_fixture_parses():
    # the body the reader returns is valid Python on its own
    source = pyast.read_source(SOURCE)
    body = textwrap.dedent(source.reference.body)
    assert "B.copy_(A * math.pi * SCALE)" in body  # an empty body would compile too
    compile(body, "<body>", "exec")


# ----------------------------------------------------- seeds, output starts and descriptors


def _base_module():
    """chgen's base class module, for its descriptors (RandTensor, OutTensor)."""
    path = template_dir() / "core" / "challenge_base.py"
    spec = importlib.util.spec_from_file_location("chgen_test_challenge_base", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


BASE = _base_module()
RandTensor, OutTensor = BASE.RandTensor, BASE.OutTensor


class PublicHabits:
    """Cases made as public challenges make them: a seed at the top, a helper, dict literals."""

    device = "cpu"

    def generate_example_test(self):
        return {"x": torch.tensor([1.0, -1.0]), "out": torch.zeros(2), "N": 2}

    def _case(self, n):
        return {"x": torch.empty(n).uniform_(-1.0, 1.0), "out": torch.zeros(n), "N": n}

    def generate_functional_test(self):
        torch.manual_seed(42)
        tests = [self.generate_example_test(), self._case(4), self._case(8)]
        torch.manual_seed(5)
        tests.append({"x": torch.randn(3), "out": torch.empty(3), "N": 3})
        x = torch.randn(3)
        torch.manual_seed(6)  # while the case is made: no case can hold it
        tests.append({"x": x, "out": torch.full((3,), -1.0), "N": 3})
        return tests

    def generate_performance_test(self):
        torch.manual_seed(1)  # descriptors are drawn (and seeded) by the runner
        return {"x": RandTensor((16,), -1.0, 1.0), "out": OutTensor((16,)), "N": 16}


def test_seeds_go_to_the_case_made_right_after_them():
    run = run_cases(PublicHabits())
    # the example draws nothing: the seed before it is the first drawn case's
    assert [case.seed for case in run.functional] == [None, 42, None, 5, None]
    assert run.unplaced_seeds == {
        "generate_functional_test": [6],
        "generate_performance_test": [1],
    }


def test_output_starts_are_read_in_the_spec_words():
    run = run_cases(PublicHabits())
    starts = [output_start(case.recipes["out"]) for case in run.functional]
    assert starts == ["zeros", "zeros", "zeros", "empty", -1.0]
    assert output_start(run.performance.recipes["out"]) == "empty"  # OutTensor
    assert same_start("zeros", 0.0) and not same_start("zeros", "empty")


def test_descriptors_are_known_by_key_and_keep_their_line():
    run = run_cases(PublicHabits())
    assert run.performance.described == ["x", "out"]
    assert run.performance.recipes["x"].kind == "uniform"
    assert run.performance.recipes["x"].line is not None
    assert all(case.described == [] for case in run.functional)
