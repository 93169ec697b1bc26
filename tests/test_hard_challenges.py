"""Two challenges a new user wrote from the README (tests/fixtures/newcomer/), and each mistake
that cost them time, reproduced from their spec: what chgen says now, at the node to fix.

- scalars that are sizes but no label's dimension (a stride, a padding) shown with `shown`;
  `show_sizes`, `hide` or `shown` where they change nothing, and a title the page rules do not
  read as an Example, are refused with what to write;
- the oracle calls the reference's helpers;
- `chgen generate` measures the tolerance against the reference's own error (and, for float32,
  against the reference computed in float16) before it writes;
- a reference that rebinds its output, a case whose derived dimension is 0, a failing case named
  by its name;
- the judge's counts (the example test apart) and NaN in the error columns.
"""

from __future__ import annotations

import io
import math
from pathlib import Path

import pytest
import torch
from rich.console import Console

from generator.checks.registry import ERROR, Finding
from generator.example_check import example_fingerprint
from generator.incremental import GenerateCache
from generator.judge.cases import EXAMPLE_CASE, example_and_functional, passed_text
from generator.judge.challenge import load_challenge
from generator.judge.commands import print_result
from generator.judge.compare import OutputReport, compare_output
from generator.judge.oracle import Oracle
from generator.judge.plan import oracle_entry
from generator.judge.report import cells
from generator.judge.signature import params_from_signature
from generator.pipeline import generate
from generator.render import challenge_html_context, render_challenge, render_core
from generator.spec import SpecErrors, load_spec_text
from generator.tolerance_check import check_tolerance
from generator.validation import spec_error
from tests.conftest import ROOT

FIXTURES = ROOT / "tests" / "fixtures" / "newcomer"
CONV = FIXTURES / "2_conv2d_stride_padding.yaml"
ATTENTION = FIXTURES / "3_causal_softmax_attention.yaml"
SECOND = "  - scalars: {H: 4, W: 4, K: 3, S: 2, P: 1}\n    shown: [S, P]\n"


def variant(path: Path, *replacements) -> str:
    text = path.read_text()
    for old, new in replacements:
        assert old in text, old
        text = text.replace(old, new, 1)
    return text


def errors_of(text: str, name: str = "spec.yaml") -> list:
    with pytest.raises(SpecErrors) as info:
        load_spec_text(text, name)
    return [e.render() for e in info.value.errors]


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def rendered_tree(text: str, root: Path, name: str) -> Path:
    """The spec's rendered challenge and the base class, written as a tree under `root`."""
    spec = root / "specs" / name
    spec.parent.mkdir(parents=True, exist_ok=True)
    spec.write_text(text)
    loaded = load_spec_text(text, name, spec)
    for files in (render_core(), render_challenge(loaded)):
        for path, body in files.items():
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_text(body)
    return root / "challenges" / loaded.spec.difficulty / loaded.spec.dir_name


# ---------------------------------------------------------------- 1. scalars an example shows
def test_the_stride_and_padding_of_each_example_are_on_the_page():
    loaded = load_spec_text(CONV.read_text(), CONV.name)
    first, second = challenge_html_context(loaded).examples
    assert first.scalar_lines == ["<code>S</code>: 1<br>", "<code>P</code>: 0"]
    assert second.scalar_lines == ["<code>S</code>: 2<br>", "<code>P</code>: 1"]


def test_shown_writes_a_size_in_the_pre_form_too():
    """`N = 3` among a <pre> example's inputs, as the public <pre> pages write a scalar."""
    spec = ROOT / "tests" / "golden" / "specs" / "1_vector_add.yaml"
    text = variant(spec, ("  - scalars: {N: 3}\n", "  - scalars: {N: 3}\n    shown: [N]\n"))
    first, second = challenge_html_context(load_spec_text(text, spec.name)).examples
    assert "N = 3" in second.pre_lines[2] and not any("N =" in line for line in first.pre_lines)


def test_show_sizes_on_a_matrix_example_is_refused_with_what_to_write():
    """Before: accepted, and the page still showed no S or P."""
    text = variant(CONV, (SECOND, SECOND.replace("shown: [S, P]", "show_sizes: true")))
    (error,) = errors_of(text)
    assert error == (
        f"spec.yaml:{line_of(text, 'show_sizes')}:17: show_sizes lists the sizes in a <pre> "
        "example only, and changes nothing here: example 2 is shown as matrices, whose labels "
        "give the sizes (drop it; to write scalars beside the data, did you mean shown: [S, P]?)"
    )


def test_an_example_title_the_page_rules_do_not_read_is_refused_at_the_title():
    """Before: `...yaml:26:14: H002 no <h2>Example</h2> section; use <h2> Implementation
    Requirements, Example(s), Constraints in this order (fix it in the spec: it renders into
    challenge.html line 105)`, at the description's line."""
    title = "  - title: 'Example 2: S = 2, P = 1'\n    scalars: {H: 4, W: 4, K: 3, S: 2, P: 1}\n"
    text = variant(CONV, (SECOND, title))
    (error,) = errors_of(text)
    assert error == (
        f"spec.yaml:{line_of(text, 'title:')}:12: title 'Example 2: S = 2, P = 1' is not an "
        "Example heading: the page rules would find no Example section for example 2 (use "
        "Example, Examples, Example 2 or Example 2:, and write the scalars beside the data with "
        "shown: did you mean shown: [S, P]?)"
    )
    (error,) = errors_of(variant(CONV, (SECOND, title + "    shown: [S, P]\n")))
    assert error.endswith("for example 2 (use Example, Examples, Example 2 or Example 2:)")


@pytest.mark.parametrize(
    "field, expect",
    [
        ("hide: [H]", "example 2's section does not write 'H' (its data gives it), so hiding it"),
        ("shown: [S, Q]", "'Q' is not a scalar of the signature (name one of H, W, K, S, P)"),
        ("shown: []", "example 2's section writes exactly these scalars without shown"),
        ("shown: [S, S]", "'S' is named twice"),
    ],
)
def test_an_example_field_that_changes_nothing_is_refused(field, expect):
    text = variant(CONV, (SECOND, SECOND.replace("shown: [S, P]", field)))
    (error,) = errors_of(text)
    assert expect in error and error.startswith(f"spec.yaml:{line_of(text, field)}:")


def test_a_heading_finding_is_at_the_title_that_writes_it(tmp_path: Path):
    """A page rule's finding on an <h2> (or about a section the page lacks) is reported at the
    spec node that writes that heading, not at the description."""
    text = variant(CONV, (SECOND, "  - title: Example 2\n" + SECOND.replace("  - ", "    ")))
    folder = rendered_tree(text, tmp_path, CONV.name)
    loaded = load_spec_text(text, CONV.name, tmp_path / "specs" / CONV.name)
    page = (folder / "challenge.html").read_text().splitlines()
    heading = next(n for n, line in enumerate(page, 1) if line == "<h2>Example 2</h2>")
    challenge = f"challenges/medium/{loaded.spec.dir_name}"

    def at(line: int, message: str) -> str:
        finding = Finding.at(f"{challenge}/challenge.html", line, 1, "H002", ERROR, message)
        return str(spec_error(loaded, folder, challenge, finding).position)

    assert at(heading, "x") == f"{CONV.name}:{line_of(text, 'title: Example 2')}:12"
    constraints = line_of(text, "constraints:") + 1
    assert at(len(page), "no <h2>Constraints</h2> section") == f"{CONV.name}:{constraints}:3"


# ----------------------------------------------------------- 2. the oracle calls the helpers
def test_the_oracle_has_the_reference_helpers_in_reach(tmp_path: Path):
    """Before: `judge_error: oracle on case example: NameError: name 'causal_attention' is not
    defined`, from chgen test only."""
    loaded = load_spec_text(ATTENTION.read_text(), ATTENTION.name)
    entry = oracle_entry(loaded.spec)
    assert "def causal_attention" in entry["helpers"]
    folder = rendered_tree(ATTENTION.read_text(), tmp_path, ATTENTION.name)
    params = params_from_signature(load_challenge(folder, "cpu").get_solve_signature())
    q = torch.tensor([[1.0, 0.0], [0.0, 1.0]])
    values = {"Q": q, "K": q, "V": torch.tensor([[1.0, 2.0], [3.0, 4.0]]), "output": q}
    values.update({"N": 2, "d": 2, "scale": math.log(3.0)})
    out = Oracle(entry, params).outputs(values)["output"]
    assert out.dtype == torch.float64
    assert torch.allclose(out, torch.tensor([[1.0, 2.0], [2.5, 3.5]], dtype=torch.float64))
    # a helper that is a method (first parameter self) is called on self, as in challenge.py
    method = {
        "helpers": "def twice(self, x):\n    return 2 * x\n",
        "forward": "self.twice(Q).sum()",
    }
    method.update(grad_output="torch.tensor(1.0)", gradients={"Q": "output"})
    grads = Oracle(method, params).outputs(values)
    assert torch.equal(grads["output"], torch.full((2, 2), 2.0, dtype=torch.float64))


# ------------------------------------------------- 3. the tolerance, measured at generate time
def tolerance(text: str, atol: str) -> str:
    old = "atol: 1.0e-4\nrtol: 1.0e-4\n"
    assert old in text
    return text.replace(old, f"atol: {atol}\nrtol: {atol}\n")


def test_a_tolerance_too_tight_for_the_reference_is_refused_at_generate(tmp_path: Path):
    """Before: generate and check silent; `chgen test` alone said `on case large_scores the
    reference deviates from the float64 oracle by 0.265 x the tolerance (limit 0.1)`."""
    text = tolerance(ATTENTION.read_text(), "1.0e-5")
    spec = tmp_path / "specs" / ATTENTION.name
    spec.parent.mkdir()
    spec.write_text(text)
    with pytest.raises(SpecErrors) as info:
        generate([spec], tmp_path / "generated", cache=GenerateCache(tmp_path / "cache"))
    (error,) = [e.render() for e in info.value.errors]
    assert error.startswith(f"{spec}:{line_of(text, 'atol:')}:7: on case large_scores the ")
    assert "reference deviates from the float64 oracle by 0.297 x the tolerance" in error
    assert "(loosen it to atol = 3e-5, rtol = 3e-5 or more," in error
    assert not (tmp_path / "generated").exists()


def test_a_tolerance_a_float16_reference_passes_is_refused(tmp_path: Path):
    text = tolerance(ATTENTION.read_text(), "5.0e-2")
    folder = rendered_tree(text, tmp_path, ATTENTION.name)
    loaded = load_spec_text(text, ATTENTION.name, tmp_path / "specs" / ATTENTION.name)
    (error,) = [e.render() for e in check_tolerance(loaded, folder)]
    assert error.startswith(f"{ATTENTION.name}:{line_of(text, 'atol:')}:7: the reference ")
    assert "computed in float16 passes every functional case at atol=0.05, rtol=0.05" in error
    assert "would accept a half-precision solution of a float32 challenge" in error
    good = tolerance(ATTENTION.read_text(), "1.0e-4")
    folder = rendered_tree(good, tmp_path / "good", ATTENTION.name)
    assert check_tolerance(load_spec_text(good, ATTENTION.name), folder) == []


def test_the_tolerance_check_is_cached_with_the_example_check():
    """The verification's key changes with the oracle (the rendered files do not hold it)."""
    text = ATTENTION.read_text()
    other = text.replace('{"output": causal_attention(Q, K, V, scale)}', '{"output": V}')
    keys = {example_fingerprint(load_spec_text(t, ATTENTION.name)) for t in (text, other)}
    assert len(keys) == 2


# ---------------------------------------------------------- 4. a reference rebinding its output
def test_a_reference_that_rebinds_its_output_is_refused_at_that_line():
    """Before: `expected output[0, 0] = 6, but the reference computes 123 ... (fix the
    hand-written value or the reference)`."""
    text = variant(CONV, ("  output.copy_(result[0, 0])", "  output = result[0, 0]"))
    (error,) = errors_of(text)
    assert error == (
        f"spec.yaml:{line_of(text, 'output = result')}:3: the reference rebinds the output "
        "'output' (line 3 of the block): the tensor the caller passed keeps its prefill; outputs "
        "are written in place (write into it: output.copy_(...) or output[...] = ...)"
    )
    viewed = "  output = output.view(-1)\n  output.copy_(result.flatten())"
    assert load_spec_text(variant(CONV, ("  output.copy_(result[0, 0])", viewed)), "spec.yaml")


def test_an_output_left_at_its_prefill_is_named_so():
    from generator.example_check import verify_example

    text = variant(CONV, ("  output.copy_(result[0, 0])", "  result = result + 0"))
    with pytest.raises(SpecErrors) as info:
        verify_example(load_spec_text(text, "spec.yaml"))
    first = info.value.errors[0].render()
    assert "example 1: expected output[0, 0] = 6, but the reference never writes it: " in first
    assert "it still holds 123, the prefill every output starts with" in first
    assert "(write every element of output in place (output.copy_(...)" in first


# ------------------------------------------------------ 5. a derived dimension of 0, case names
def test_a_case_whose_output_has_no_elements_is_refused_at_its_sizes():
    """Before: `D005 reference_impl failed on functional case 2: RuntimeError: ... ; use ops that
    run on every device`."""
    sizes = "    scalars: {H: 2, W: 2, K: 3, S: 1, P: 0}"
    text = variant(CONV, ("    scalars: {H: 1, W: 1, K: 1, S: 1, P: 0}", sizes))
    (error,) = errors_of(text)
    assert error == (
        f"spec.yaml:{line_of(text, sizes)}:14: dimension (H + 2 * P - K) // S + 1 of 'output' is "
        "0 for the sizes of case 'single_pixel' (H=2, W=2, K=3, S=1, P=0): output would have no "
        "elements, and the reference and solutions nothing to compute (choose sizes that make "
        "every dimension at least 1)"
    )


def test_a_deep_finding_names_the_case_and_a_fix_that_fits(tmp_path: Path):
    loaded = load_spec_text(CONV.read_text(), CONV.name)
    message = "reference_impl failed on functional case 2: RuntimeError: boom"
    message += "; use ops that run on every device"  # the rule's own fix, as Report.add adds it
    finding = Finding.at("challenges/medium/x/challenge.py", 35, 1, "D005", ERROR, message)
    error = spec_error(loaded, tmp_path, "challenges/medium/x", finding)
    assert error.code == "D005" and error.message == (
        "reference_impl failed on case 'single_pixel' (functional case 3 of 7): "
        "RuntimeError: boom"
    )
    assert error.hint.startswith("fix the reference (it runs on the CPU here), or the case's ")
    assert error.position.line == line_of(CONV.read_text(), "name: single_pixel")


# ------------------------------------------------------------------ 6. the judge's counts agree
def test_the_example_test_is_named_apart_from_a_case_named_example(tmp_path: Path):
    """Before: `example` twice in the judge's table, `pass: 8 case(s) passed` beside a mutant's
    `caught 6/7`."""
    folder = rendered_tree(ATTENTION.read_text(), tmp_path, ATTENTION.name)
    challenge = load_challenge(folder, "cpu")
    params = params_from_signature(challenge.get_solve_signature())
    names = [c.name for c in load_spec_text(ATTENTION.read_text(), "s.yaml").spec.functional]
    cases = example_and_functional(challenge, params, 0, names)
    assert [c.name for c in cases[:2]] == [EXAMPLE_CASE, "example"] and len(cases) == 8
    said = passed_text([c.name for c in cases])
    assert said == "the example test and 7 functional case(s) passed"
    row = {"challenge": "3_x", "kind": "mutant", "name": "m", "language": "pytorch"}
    row.update({"verdict": "wrong_answer", "ok": True, "cases": 7, "cases_passed": 1})
    assert cells(row)["Cases"] == "caught 6/7 functional"


# --------------------------------------------------------------- 7. NaN in the error columns
def test_nan_is_in_the_error_columns_and_the_json():
    """Before: `832 of 1056 element(s) differ; first at [2, 0]: got nan ... (max abs 5.96e-08,
    max rel 1.16e-07)`, and the same numbers in --json."""
    want = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    got = want.clone()
    got[0, 0] = float("nan")
    got[1, 1] = 4.001
    report = OutputReport([compare_output("output", got, want, 1e-3, 1e-3)])
    assert report.first_failure().describe() == (
        "output: 1 of 4 element(s) differ; first at [0, 0]: got nan, expected 1.0 (max abs nan, "
        "max rel nan: 1 NaN; over the finite elements max abs 0.001, max rel 0.00025)"
    )
    errors = report.errors()
    assert errors == {"max_abs": "nan", "max_rel": "nan", "nan": 1}
    buffer = io.StringIO()
    case = {"name": "example", "verdict": "wrong_answer", "seconds": 0.01, **errors}
    result = {"verdict": "wrong_answer", "message": "m", "source": "s.py", "cases": [case]}
    print_result(result, Console(file=buffer, width=200))
    row = next(line for line in buffer.getvalue().splitlines() if "wrong_answer" in line)
    assert row.count("nan") == 2
    infinite = compare_output("output", torch.tensor([math.inf, 1.0]), torch.ones(2), 0, 0)
    assert (infinite.max_abs, infinite.inf, infinite.nan) == (math.inf, 1, 0)
