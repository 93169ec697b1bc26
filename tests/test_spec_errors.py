"""A bad spec gives one clean line per problem, at file:line:column, and never a traceback."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from generator.cli import app
from generator.spec import SpecErrors, load_spec, load_spec_text
from tests.conftest import SPEC_142

LINE_RE = re.compile(r"^[^:\n]+:\d+:\d+: .+")


def load_errors(text: str) -> list:
    with pytest.raises(SpecErrors) as info:
        load_spec_text(text, "spec.yaml")
    return [e.render() for e in info.value.errors]


def base_text() -> str:
    return SPEC_142.read_text()


def line_of(text: str, needle: str) -> int:
    for number, line in enumerate(text.splitlines(), 1):
        if needle in line:
            return number
    raise AssertionError(needle)


def test_the_142_spec_loads():
    loaded = load_spec(SPEC_142)
    assert loaded.spec.id == 142
    assert [p.name for p in loaded.spec.signature] == [
        "x", "dy", "weight", "dx", "dweight", "N", "C", "eps",
    ]  # fmt: skip


def assert_positioned(text, needle, expect):
    """Every error is one positioned line; one of them says `expect` at the line of `needle`."""
    errors = load_errors(text)
    joined = "\n".join(errors)
    assert expect in joined
    wanted = line_of(text, needle)
    assert any(f"spec.yaml:{wanted}:" in e for e in errors), joined
    for error in errors:
        assert LINE_RE.match(error) and "\n" not in error


@pytest.mark.parametrize(
    "old, new, needle, expect",
    [
        (
            "dtype: float32, direction: in, shape: [N, C]}",
            "dtype: float33, direction: in, shape: [N, C]}",
            "float33",
            "tensor dtype 'float33' is unknown",
        ),
        ("{name: dy,", "{name: lambda,", "name: lambda,", "a Python keyword"),
        ("slug: rms_norm_backward", "slug: RMS-Norm", "slug:", "slug"),
        ("difficulty: medium", "difficulty: mediums", "difficulty:", "difficulty"),
        ("    scalars: {N: 37, C: 1}", "    scalars: {N: 37, C: 1.5}", "C: 1.5", "'C' is int32"),
        (
            "x: {normal: [0.0, 50.0]}",
            "x: {gaussian: [0.0, 50.0]}",
            "gaussian",
            "an input is one of",
        ),
        ("min_bytes: 3 * N * C * 4", "min_bytes: 3 * N * Q * 4", "min_bytes", "unknown name 'Q'"),
        (
            "    dweight: [3.0, -1.0, 1.0, -1.0]",
            "    dweight: [3.0, -1.0, 1.0]",
            "dweight: [3.0, -1.0, 1.0]",
            "shape [3]",
        ),
        (
            "{N: 16384, C: 4096, eps: 1.0e-5}",
            "{N: 163840, C: 4096, eps: 1.0e-5}",
            "163840",
            "must fit five times",
        ),
        (
            "atol: 1.0e-3",
            "atol: 1.0e-3\nbogus_field: 1",
            "bogus_field",
            "unknown field 'bogus_field'",
        ),
        (
            "      x: {constant: 0.0}",
            "      x: {constant: 0.0}\n      z: {constant: 1.0}",
            "z: {constant",
            "'z' is not an input tensor",
        ),
    ],
)
def test_errors_point_at_the_line(old, new, needle, expect):
    text = base_text()
    assert old in text, old
    assert_positioned(text.replace(old, new, 1), needle, expect)


def test_yaml_syntax_error_has_position():
    errors = load_errors("id: 1\nslug: [unclosed\nname: x\n")
    assert len(errors) == 1
    assert errors[0].startswith("spec.yaml:3:5: YAML syntax error")


def test_duplicate_keys_are_errors():
    errors = load_errors(base_text().replace("num_gpus: 1", "num_gpus: 1\nnum_gpus: 2"))
    assert any("duplicate key 'num_gpus'" in e for e in errors)


def test_unsafe_yaml_tags_are_refused():
    errors = load_errors("!!python/object/apply:os.system ['echo hi']\n")
    assert len(errors) == 1 and "spec.yaml:1:1:" in errors[0]


def test_sidecar_svg_cannot_escape_the_specs_folder(tmp_path: Path):
    text = base_text().replace("svg: 142_rms_norm_backward.svg", "svg: ../../etc/passwd.svg")
    path = tmp_path / "142_rms_norm_backward.yaml"
    path.write_text(text)
    with pytest.raises(SpecErrors) as info:
        load_spec(path)
    assert "plain file name" in str(info.value)


def test_wrong_hand_written_example_names_the_spec_line(workdir: Path, runner):
    spec = workdir / "specs" / "142_rms_norm_backward.yaml"
    text = spec.read_text().replace("dx: [[1.375, 1.625", "dx: [[1.5, 1.625")
    spec.write_text(text)
    before = (workdir / "generated" / ".chgen" / "manifest.json").read_text()
    result = runner.invoke(app, ["generate"])
    assert result.exit_code == 1
    line = line_of(text, "dx: [[1.5, 1.625")
    assert f"specs/142_rms_norm_backward.yaml:{line}:" in result.output
    assert "reference computes 1.37499" in result.output
    assert "Traceback" not in result.output
    assert (workdir / "generated" / ".chgen" / "manifest.json").read_text() == before


def test_cli_reports_one_line_per_error_and_no_traceback(workdir: Path, runner):
    spec = workdir / "specs" / "142_rms_norm_backward.yaml"
    text = spec.read_text().replace(
        "dtype: float32, direction: in, shape: [C]}",
        "dtype: float32, direction: sideways, shape: [C]}",
    )
    spec.write_text(text)
    result = runner.invoke(app, ["generate"])
    assert result.exit_code == 1
    assert "Traceback" not in result.output
    lines = [ln for ln in result.output.splitlines() if ln.startswith("error ")]
    assert len(lines) == 1 and re.search(r"142_rms_norm_backward.yaml:\d+:\d+: ", lines[0])


GOLDEN_SPECS = Path(__file__).parent / "golden" / "specs"


@pytest.mark.parametrize(
    "spec_name, old, new, needle, expect",
    [
        (
            "202_2d_row_sums.yaml",
            "    inputs: {X: {normal: [0.0, 1.0]}}\n    descriptors: true",
            "    inputs: {X: {values: [[1.0]]}}\n    descriptors: true",
            "values: [[1.0]]",
            "values has no descriptor",
        ),
        (
            "202_2d_row_sums.yaml",
            "    inputs: {X: {normal: [0.0, 1.0]}}\n    descriptors: true",
            "    inputs: {X: {normal: [0.0, 1.0]}}\n    seed: 4\n    descriptors: true",
            "seed: 4",
            "a seed here has no effect",
        ),
        (
            "202_2d_row_sums.yaml",
            "  min_bytes: M * K * 4 + M * 4",
            "  min_bytes: M * K * 4 + M * 4\n  prefill: 2.5",
            "prefill: 2.5",
            "start empty (OutTensor), not 2.5",
        ),
        (
            "202_2d_row_sums.yaml",
            "prefill: -1.0}",
            "prefill: full}",
            "prefill: full}",
            "functional.prefill",
        ),
        (
            "201_mix_rounds.yaml",
            "  tilelang: |",
            "  fortran: |",
            "fortran: |",
            "no language is called 'fortran'",
        ),
        (
            "201_mix_rounds.yaml",
            "  pytorch: |\n    def mix_round(v: torch.Tensor) -> torch.Tensor:",
            "  pytorch: |\n    def mix_round(v: torch.Tensor) -> torch.Tensor",
            "  pytorch: |",
            "not valid Python",
        ),
        (
            "201_mix_rounds.yaml",
            "reference_helpers: |\n",
            "reference_helpers: |\n  print(3)\n",
            "reference_helpers: |",
            "is not a def, an import or a constant",
        ),
        (
            "201_mix_rounds.yaml",
            "reference_helpers: |\n",
            "reference_helpers: |\n  import os\n",
            "reference_helpers: |",
            "helpers may import math and torch modules only",
        ),
        (
            "201_mix_rounds.yaml",
            "  def _mix_rounds(self,",
            "  def reference_impl(self,",
            "reference_helpers: |",
            "would replace a name chgen writes",
        ),
        (
            "901_channel_pair_sum.yaml",
            "  return y, y.sum()\n",
            "  y.sum()\n",
            "reference_jax: |",
            "reference_jax returns nothing: reference_impl_jax returns the outputs (return their "
            "values as arrays, in signature order: `return y, total`)",
        ),
        (
            "901_channel_pair_sum.yaml",
            "reference_jax: |\n",
            "reference_jax: |\n  import numpy as np\n",
            "reference_jax: |",
            "reference_jax line 1 imports numpy; it may import jax modules and math only",
        ),
        (
            "901_channel_pair_sum.yaml",
            "  return y, y.sum()\n",
            "  return y, y.sum(\n",
            "reference_jax: |",
            "reference_jax is not valid Python",
        ),
        (
            "202_2d_row_sums.yaml",
            "  y.copy_(X.sum(dim=1) * scale)\n",
            "  y.copy_(X.sum(dim=1) * scale)\nexploded_reference_jax: true\n",
            "exploded_reference_jax: true",
            "exploded_reference_jax without a reference_jax",
        ),
        (
            "201_mix_rounds.yaml",
            "  def _mix_rounds(self,",
            "  def reference_impl_jax(self,",
            "reference_helpers: |",
            "helper 'reference_impl_jax' would replace a name chgen writes",
        ),
        (
            "201_mix_rounds.yaml",
            "single_element, scalars: {N: 1, R: 1}",
            "single_element, scalars: {N: -1, R: 1}",
            "N: -1",
            "'N' does not fit in size_t",
        ),
    ],
)
def test_new_constructs_are_refused_where_misused(spec_name, old, new, needle, expect):
    text = (GOLDEN_SPECS / spec_name).read_text()
    assert old in text, old
    assert_positioned(text.replace(old, new, 1), needle, expect)
