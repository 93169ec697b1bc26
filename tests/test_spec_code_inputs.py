"""Code inputs (`{code: ...}`): the author's torch code, written into generate_* at its turn.

An expression is the input's value; statements bind its name and may bind inputs after it (made
together). What a block may not bind or hold is one error at its line; a drawn example's code runs
when the example is verified (on the CPU, its tensor checked against the signature); a functional
case's code runs in the rendered challenge.py when `chgen generate` checks it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.example_check import verify_example
from generator.render import challenge_py_context
from generator.spec import SpecErrors, load_spec_text
from tests.conftest import ROOT

SPEC = ROOT / "tests" / "golden" / "specs" / "1_vector_add.yaml"
ZEROS = "    inputs: {A: {constant: 0.0}, B: {constant: 0.0}}\n"
EXAMPLE = """  - scalars: {N: 4}
    inputs:
      A: [1.0, 2.0, 3.0, 4.0]
      B: [5.0, 6.0, 7.0, 8.0]
    outputs:
      C: [6.0, 8.0, 10.0, 12.0]
"""


def with_inputs(inputs: str) -> str:
    """The golden spec with the `zeros` case's inputs (line 62) replaced."""
    text = SPEC.read_text()
    assert ZEROS in text
    return text.replace(ZEROS, inputs)


def errors_of(text: str, verify: bool = False) -> list:
    with pytest.raises(SpecErrors) as info:
        loaded = load_spec_text(text, "spec.yaml")
        if verify:
            verify_example(loaded)
    return [e.render() for e in info.value.errors]


def case_lines(text: str, name: str) -> list:
    spec = load_spec_text(text, "spec.yaml").spec
    index = [c.name for c in spec.functional].index(name)
    return challenge_py_context(spec).cases[index].lines


def test_an_expression_is_the_input_and_a_block_is_written_as_it_stands():
    text = with_inputs(
        "    inputs:\n"
        "      A:\n"
        "        code: |\n"
        "          mask = torch.rand((N,), device=self.device) < 0.5\n"
        "          A = mask * torch.randn((N,), device=self.device)\n"
        '      B: {code: "torch.arange(N, device=self.device, dtype=torch.float32)"}\n'
    )
    assert case_lines(text, "zeros") == [
        "N = 16",
        "mask = torch.rand((N,), device=self.device) < 0.5",
        "A = mask * torch.randn((N,), device=self.device)",
        "B = torch.arange(N, device=self.device, dtype=torch.float32)",
    ]


def test_a_block_may_make_the_inputs_after_it_which_then_have_no_form_of_their_own():
    text = with_inputs(
        "    inputs:\n"
        "      A:\n"
        "        code: |\n"
        "          probs = torch.softmax(torch.randn((N,), device=self.device), dim=0)\n"
        "          A, B = probs, probs.flip(0)\n"
    )
    assert case_lines(text, "zeros")[1:] == [
        "probs = torch.softmax(torch.randn((N,), device=self.device), dim=0)",
        "A, B = probs, probs.flip(0)",
    ]
    # (the default of B does not apply where A's code makes B: no line of its own)
    given = text.replace("A, B = probs, probs.flip(0)\n", "A, B = probs, probs.flip(0)\n"
                         "      B: {constant: 1.0}\n")  # fmt: skip
    assert errors_of(given) == [
        "spec.yaml:67:10: 'B' is made by the code of 'A', and given here too (drop this entry, "
        "or stop binding B in that code)"
    ]


@pytest.mark.parametrize(
    "code, message",
    [
        (
            "D = torch.zeros(N)",
            "spec.yaml:64:15: code of 'A' is statements that never bind 'A' (assign A in the "
            "block (`A = ...`), or write one expression)",
        ),
        (
            "A = torch.zeros(N)\n          tests = []",
            "spec.yaml:64:15: code of 'A' binds 'tests', a name generate_* uses itself (rename "
            "that variable)",
        ),
        (
            "import numpy\n          A = torch.zeros(N)",
            "spec.yaml:64:15: code of 'A' holds `import` (line 1 of the block); an input's code "
            "runs inside generate_*, where it would end or leave the method (write statements "
            "that bind the input (helpers go in reference_helpers))",
        ),
        (
            "A = torch.zeros(N\n",
            "spec.yaml:64:15: functional.inputs.A.code: code is not valid Python: '(' was never "
            "closed (line 1) (fix the Python at that line of the block)",
        ),
    ],
    ids=["never binds", "binds tests", "imports", "syntax"],
)
def test_what_a_block_may_not_do_is_one_positioned_error(code: str, message: str):
    text = with_inputs(f"    inputs:\n      A:\n        code: |\n          {code}\n")
    assert errors_of(text) == [message]


def test_a_block_may_not_replace_an_input_made_before_it():
    text = with_inputs(
        "    inputs:\n      B:\n        code: |\n          A = torch.ones(N)\n          B = A\n"
    )
    assert errors_of(text) == [
        "spec.yaml:64:15: code of 'B' binds 'A', an input made before it (move this code to 'A' "
        "(the first input it makes), or rename the variable)"
    ]


def test_code_has_no_descriptor():
    text = with_inputs(
        '    descriptors: true\n    inputs: {A: {code: "torch.zeros(N)"}, B: {constant: 0.0}}\n'
    )
    assert errors_of(text) == [
        "spec.yaml:63:17: code has no descriptor (RandTensor, RandnTensor, RandIntTensor, "
        "FullTensor) (drop descriptors: true for this case)"
    ]


def drawn_example(code: str, seed: str = "") -> str:
    example = (
        "  - scalars: {N: 4}\n"
        f"{seed}"
        "    inputs:\n"
        "      A:\n"
        "        code: |\n"
        f"          {code}\n"
        "      B: [5.0, 6.0, 7.0, 8.0]\n"
        "    outputs: reference\n"
    )
    text = SPEC.read_text()
    assert EXAMPLE in text
    return text.replace(EXAMPLE, example)


def test_a_drawn_examples_code_draws_from_its_seeded_generator():
    code = "A = torch.randn((N,), generator=generator).to(self.device)"
    loaded = load_spec_text(drawn_example(code, "    seed: 5\n"), "spec.yaml")
    verify_example(loaded)
    lines = challenge_py_context(loaded.spec).example.lines
    assert lines == [
        "N = 4",
        "generator = torch.Generator().manual_seed(5)",
        "A = torch.randn((N,), generator=generator).to(self.device)",
        "B = torch.tensor([5.0, 6.0, 7.0, 8.0], device=self.device, dtype=torch.float32)",
    ]


@pytest.mark.parametrize(
    "code, message",
    [
        (
            "A = torch.zeros((N, 2))",
            "spec.yaml:37:9: the code makes A [4, 2] float32; the signature and example 1's sizes "
            "give [4] float32 (make the tensor in that shape and dtype)",
        ),
        (
            "A = torch.zeros(N) / undefined",
            "spec.yaml:37:15: the code of example 1's inputs failed: NameError: name 'undefined' "
            "is not defined (fix the code (it runs on the CPU, seeded with the example's seed))",
        ),
    ],
    ids=["shape", "raises"],
)
def test_a_drawn_examples_code_is_checked_where_it_is_written(code: str, message: str):
    assert errors_of(drawn_example(code), verify=True) == [message]


def test_a_functional_cases_code_is_run_by_the_deep_checks(runner, tmp_path: Path):
    from generator.cli import app

    specs = tmp_path / "specs"
    specs.mkdir()
    text = with_inputs('    inputs: {A: {code: "torch.zeros(N + 1, device=self.device)"}}\n')
    (specs / "1_vector_add.yaml").write_text(text)
    result = runner.invoke(app, ["generate", "--specs", str(specs), "--out", str(tmp_path / "out")])
    assert result.exit_code == 1
    assert "spec.yaml" not in result.output and "1_vector_add.yaml:62:" in result.output
    assert "Traceback" not in result.output


def with_count(inputs: str) -> str:
    """The golden spec with a scalar `count` that no shape names, and the `zeros` case's inputs
    replaced."""
    text = with_inputs(inputs).replace(
        "  - {name: N, dtype: int32}\n",
        "  - {name: N, dtype: int32}\n  - {name: count, dtype: int32}\n",
    )
    text = text.replace("scalars: {N: 4}", "scalars: {N: 4, count: 4}")
    text = text.replace("scalars: {N: 3}", "scalars: {N: 3, count: 2}")
    text = text.replace("scalars: {N: 25000000}", "scalars: {N: 25000000, count: 0}")
    return text.replace("defaults:\n", "defaults:\n  scalars: {count: 0}\n")


COUNTED = (
    "    inputs:\n"
    "      A:\n"
    "        code: |\n"
    "          A = torch.randn((N,), device=self.device)\n"
    "          count = int((A > 0).sum().item())\n"
)


def test_a_block_may_compute_a_scalar_that_is_no_size():
    text = with_count(COUNTED)
    lines = case_lines(text, "zeros")
    assert lines[1:3] == [
        "A = torch.randn((N,), device=self.device)",
        "count = int((A > 0).sum().item())",
    ]
    spec = load_spec_text(text, "spec.yaml").spec
    index = [c.name for c in spec.functional].index("zeros")
    assert challenge_py_context(spec).cases[index].call == "self._make(A, B, N, count)"
    # the other cases pass the default
    assert challenge_py_context(spec).cases[index + 1].call == "self._make(A, B, N, 0)"


def test_a_computed_scalar_given_too_and_a_size_bound_are_errors():
    given = with_count(COUNTED).replace("scalars: {N: 16}", "scalars: {N: 16, count: 3}")
    assert errors_of(given) == [
        "spec.yaml:63:29: 'count' is computed by the code of 'A', and given here too (drop this "
        "value, or stop binding count in that code)"
    ]
    size = with_inputs("    inputs:\n      A:\n        code: |\n          A = torch.zeros(3)\n"
                       "          N = 3\n")  # fmt: skip
    assert errors_of(size) == [
        "spec.yaml:64:15: code of 'A' binds 'N', a size: the case's shapes are made with it "
        "before any input (give N its value in the case's scalars, and rename the variable)"
    ]
