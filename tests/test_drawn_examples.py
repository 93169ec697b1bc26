"""Drawn examples: an example too large to write as literal data draws its inputs on the CPU
generator with its seed (the same values on every device) and takes its outputs from the
reference (`outputs: reference`, verified at generate time); its page lists the shapes."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
import yaml

from generator.cli import app
from generator.example_check import verify_example
from generator.importer import import_challenge
from generator.render import challenge_html_context, challenge_py_context
from generator.spec import SpecErrors, load_spec_text
from tests.conftest import ROOT

SPEC = ROOT / "tests" / "golden" / "specs" / "1_vector_add.yaml"
FIXTURE = (
    Path(__file__).parent
    / "importer"
    / "fixtures"
    / "public_style"
    / "large_examples"
    / "challenges"
    / "medium"
    / "209_row_offset"
)
LITERAL = """  - scalars: {N: 4}
    inputs:
      A: [1.0, 2.0, 3.0, 4.0]
      B: [5.0, 6.0, 7.0, 8.0]
    outputs:
      C: [6.0, 8.0, 10.0, 12.0]
"""
DRAWN = """  - scalars: {N: 5000}
    seed: 3
    inputs:
      A: {normal: [0, 1]}
      B: {uniform: [-1, 1]}
    outputs: reference
"""


def spec_with(example: str, reference: str = "torch.add(A, B, out=C)") -> str:
    text = SPEC.read_text().replace(LITERAL, example)
    return text.replace("  torch.add(A, B, out=C)\n", f"  {reference}\n")


def errors_of(text: str, verify: bool = False) -> list:
    with pytest.raises(SpecErrors) as info:
        loaded = load_spec_text(text, "spec.yaml")
        if verify:
            verify_example(loaded)
    return [e.render() for e in info.value.errors]


def test_a_drawn_example_is_drawn_on_the_cpu_generator_and_moved_to_the_device():
    loaded = load_spec_text(spec_with(DRAWN), "spec.yaml")
    verify_example(loaded)
    lines = challenge_py_context(loaded.spec).example.lines
    assert lines[:2] == ["N = 5000", "generator = torch.Generator().manual_seed(3)"]
    assert lines[2] == (
        "A = torch.empty((N,), dtype=torch.float32).normal_(0, 1, generator=generator)"
        ".to(self.device)"
    )
    # the values challenge.py draws are a CPU generator's, whatever self.device is
    self = type("Challenge", (), {"device": "meta"})()
    generator = torch.Generator().manual_seed(3)
    want = torch.empty(5000).normal_(0, 1, generator=generator)
    local = {"torch": torch, "self": self}
    exec("\n".join(lines[:3]), local)  # noqa: S102 - our code
    assert local["A"].device.type == "meta"
    self.device = "cpu"
    exec("\n".join(lines[:3]), local)  # noqa: S102 - our code
    assert torch.equal(local["A"], want)


def test_the_page_lists_shapes_and_how_each_input_is_drawn():
    section = challenge_html_context(load_spec_text(spec_with(DRAWN), "spec.yaml")).examples[0]
    assert section.intro == (
        "With <code>N</code> = 5,000, <code>A</code> drawn from a normal distribution (mean 0, "
        "standard deviation 1), and <code>B</code> uniformly drawn from [&minus;1, 1]:"
    )
    assert section.pre_lines == [
        "Input:  A.shape = (5,000,)",
        "        B.shape = (5,000,)",
        "        N       = 5000",
        "Output: C.shape = (5,000,)",
    ]


@pytest.mark.parametrize(
    "example, message, hint",
    [
        (DRAWN.replace("    seed: 3\n", ""), "draws 'A' but gives no seed", "add seed: 0"),
        (
            LITERAL.replace("  - scalars: {N: 4}\n", "  - scalars: {N: 4}\n    seed: 1\n"),
            "gives a seed but draws no input",
            "drop seed",
        ),
        (
            DRAWN.replace("outputs: reference", "outputs: {C: [1.0]}"),
            "draws its inputs, so its outputs cannot be written by hand",
            "write outputs: reference",
        ),
        (
            LITERAL.replace(
                "    outputs:\n      C: [6.0, 8.0, 10.0, 12.0]", "    outputs: reference"
            ),
            "gives literal inputs, so its outputs are written by hand",
            "hand-computed value",
        ),
        (
            DRAWN.replace(
                "{uniform: [-1, 1]}", "{correlated: {source: A, scale: 1, noise: [0, 1]}}"
            ),
            "not correlated",
            "nested list",
        ),
        (DRAWN.replace("{uniform: [-1, 1]}", "{uniform: [1, -1]}"), "low < high", "low < high"),
    ],
)
def test_a_drawn_example_that_cannot_be_rendered_is_one_positioned_error(example, message, hint):
    error = errors_of(spec_with(example))[0]
    assert error.startswith("spec.yaml:") and message in error and hint in error


def test_the_reference_must_write_every_element_and_agree_with_float64():
    error = errors_of(spec_with(DRAWN, "C[1:] = A[1:] + B[1:]"), verify=True)[0]
    assert "leaves C[0] unwritten (NaN)" in error
    # float32 and float64 differ past the tolerance: the example cannot be checked either way
    far = "C.copy_((A * 1e8 + B) - A * 1e8)"
    error = errors_of(spec_with(DRAWN, far), verify=True)[0]
    assert "in the signature's dtypes but" in error and "in float64" in error


def test_import_writes_a_seeded_draw_and_the_page_regenerates(runner, tmp_path: Path):
    imported = import_challenge(FIXTURE)
    example = yaml.safe_load(imported.spec_text)["example"]
    assert example["seed"] == 7 and example["outputs"] == "reference"
    assert example["inputs"] == {"x": {"normal": [0.0, 1.0]}, "offset": {"uniform": [-1.0, 1.0]}}
    assert imported.generate_errors == []
    (spec,) = [
        p for p in imported.write(tmp_path / "specs" / imported.spec_name) if p.suffix == ".yaml"
    ]
    result = runner.invoke(app, ["generate", "--out", str(tmp_path / "tree"), str(spec)])
    assert result.exit_code == 0, result.output
    made = tmp_path / "tree" / "challenges" / "medium" / "209_row_offset"
    assert (made / "challenge.html").read_text() == (FIXTURE / "challenge.html").read_text()
    assert "torch.Generator().manual_seed(7)" in (made / "challenge.py").read_text()
