"""`chgen import` on small challenges written here: what it refuses, relaxes and reports."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from generator.cli import app
from generator.importer import ImportFailure, import_challenge
from generator.naming import MODELINE, SCHEMA_NAME
from generator.render import render_starters
from generator.spec import load_spec

PAGE = """<p>
  Scale a vector.
</p>
<svg viewBox="0 0 4 4"><rect width="4" height="4"/></svg>

<h2>Implementation Requirements</h2>
<ul>
  <li>The <code>solve</code> function signature must remain unchanged</li>
</ul>

<h2>Example</h2>
<pre>
Input:  A = [1.0, 2.0]
        N = 2
Output: B = [2.0, 4.0]
</pre>

<h2>Constraints</h2>
<ul>
  <li>Performance is measured with <code>N</code> = 1,000</li>
</ul>
"""

CHALLENGE = """import ctypes

import torch
from core.challenge_base import ChallengeBase


class Challenge(ChallengeBase):
    name = "Double"
    atol = 1e-05
    rtol = 1e-05
    num_gpus = 1
    access_tier = "free"

    def reference_impl(self, A, B, N):
        B.copy_(A * 2.0)

    def get_solve_signature(self):
        return {{
            "A": (ctypes.POINTER(ctypes.{ctype}), "in"),
            "B": (ctypes.POINTER(ctypes.{ctype}), "out"),
            "N": (ctypes.c_int, "in"),
        }}

    def generate_example_test(self):
        A = torch.tensor([1.0, 2.0], device=self.device, dtype={dtype})
        return {{"A": A, "B": torch.empty({out_shape}, device=self.device, dtype={dtype}), "N": 2}}

    def generate_functional_test(self):
        tests = []
        for n in (100, 200):
            {draw}
            B = torch.empty({out_shape_n}, device=self.device, dtype={dtype})
            tests.append({{"A": A, "B": B, "N": n}})
        return tests

    def generate_performance_test(self):
        n = 1000
        A = torch.empty(n, device=self.device, dtype={dtype}).uniform_(-1.0, 1.0)
        B = torch.empty({out_shape_n}, device=self.device, dtype={dtype})
        return {{"A": A, "B": B, "N": n}}
"""
DRAW = "A = torch.empty(n, device=self.device, dtype={dtype}).uniform_(-1.0, 1.0)"


def make(root: Path, name: str = "301_double", **changes) -> Path:
    fields = {
        "ctype": "c_float",
        "dtype": "torch.float32",
        "out_shape": "2",
        "out_shape_n": "n",
        "draw": DRAW,
    }
    fields.update(changes)
    fields["draw"] = fields["draw"].format(dtype=fields["dtype"])
    directory = root / "challenges" / "medium" / name
    (directory / "starter").mkdir(parents=True)
    (directory / "challenge.py").write_text(CHALLENGE.format(**fields))
    (directory / "challenge.html").write_text(PAGE)
    return directory


def test_a_plain_challenge_imports_with_its_svg_beside_the_spec(tmp_path: Path, runner):
    directory = make(tmp_path)
    out = tmp_path / "specs"
    out.mkdir()
    result = runner.invoke(app, ["import", str(directory), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert (out / "301_double.svg").read_text() == (
        '<svg viewBox="0 0 4 4"><rect width="4" height="4"/></svg>\n'
    )
    text = (out / "301_double.yaml").read_text()
    # the first line names the schema written beside the spec, for editors to check it with
    assert text.splitlines()[0] == MODELINE and (out / SCHEMA_NAME).is_file()
    assert f"wrote {out / SCHEMA_NAME}" in result.output
    spec = yaml.safe_load(text)
    assert spec["svg"] == "301_double.svg"
    assert spec["example"]["outputs"] == {"B": [2.0, 4.0]}
    assert spec["defaults"]["inputs"] == {"A": {"uniform": [-1.0, 1.0]}}
    assert [c["name"] for c in spec["functional"]] == ["case_1", "case_2"]
    # the report goes to the terminal as well as into the spec
    assert "starter/starter.cu is missing" in result.output
    again = runner.invoke(app, ["import", str(directory), "-o", str(out)])
    assert again.exit_code == 1 and "--force" in again.output
    forced = runner.invoke(app, ["import", str(directory), "-o", str(out), "--force"])
    assert forced.exit_code == 0, forced.output


def test_the_spec_file_must_be_named_by_id_and_slug(tmp_path: Path, runner):
    directory = make(tmp_path)
    result = runner.invoke(app, ["import", str(directory), "-o", str(tmp_path / "other.yaml")])
    assert result.exit_code == 1
    assert "301_double.yaml" in result.output


def test_dash_prints_the_spec_with_the_svg_inline(tmp_path: Path, runner):
    result = runner.invoke(app, ["import", str(make(tmp_path)), "-o", "-"])
    assert result.exit_code == 0, result.output
    assert "svg: |\n  <svg" in result.stdout


def test_fp16_behind_c_uint16_is_told_apart_from_bf16(tmp_path: Path):
    half = import_challenge(make(tmp_path / "a", ctype="c_uint16", dtype="torch.float16"))
    assert "{name: A, dtype: float16, direction: in, shape: [N]}" in half.spec_text
    brain = import_challenge(make(tmp_path / "b", ctype="c_uint16", dtype="torch.bfloat16"))
    assert "{name: A, dtype: bfloat16, direction: in, shape: [N]}" in brain.spec_text


def test_draws_in_another_order_are_written_as_the_originals_calls(tmp_path: Path):
    # an extra draw before A shifts every value after it: A's distribution alone would draw other
    # values, so the case's inputs are the original's own calls, the unused draw among them
    draw = "torch.rand(3)\n            " + DRAW
    imported = import_challenge(make(tmp_path, draw=draw))
    assert imported.report.approximated == {}
    assert imported.equivalence.problems() == []
    spec = yaml.safe_load(imported.spec_text)
    for case in spec["functional"]:
        code = case["inputs"]["A"]["code"]
        assert code.startswith("torch.rand(3)\n"), code
    assert "its inputs are made by the original's own torch calls (code)" in imported.spec_text


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"out_shape": "2", "out_shape_n": "n % 7 + 3"}, "equals no expression of the sizes"),
        ({"dtype": "torch.float64", "ctype": "c_double"}, "dtype table lacks"),
    ],
)
def test_what_a_spec_cannot_express_is_refused_with_the_reason(tmp_path: Path, changes, message):
    with pytest.raises(ImportFailure, match=message.replace("[", r"\[").replace("]", r"\]")):
        import_challenge(make(tmp_path, **changes))


def test_a_derived_shape_is_imported_as_an_expression(tmp_path: Path):
    directory = make(tmp_path, out_shape="4", out_shape_n="2 * n")
    path = directory / "challenge.py"
    path.write_text(path.read_text().replace("B.copy_(A * 2.0)", "B.copy_(torch.cat([A, A]))"))
    imported = import_challenge(directory)
    assert "{name: B, dtype: float32, direction: out, shape: [2 * N]}" in imported.spec_text
    assert imported.equivalence.problems() == []


def test_a_case_passing_another_rank_gets_its_own_shape(tmp_path: Path):
    draw = "A = torch.empty(n, 1, device=self.device).uniform_(-1.0, 1.0)"
    directory = make(tmp_path, draw=draw)
    path = directory / "challenge.py"
    path.write_text(path.read_text().replace("A * 2.0", "A.reshape(B.shape) * 2.0"))
    imported = import_challenge(directory)
    spec = yaml.safe_load(imported.spec_text)
    assert [c["shapes"] for c in spec["functional"]] == [{"A": ["N", 1]}, {"A": ["N", 1]}]
    assert "shapes" not in spec["performance"]
    assert imported.equivalence.problems() == []


def test_a_parameter_named_out_imports_and_only_mojo_escapes_it(tmp_path: Path):
    directory = make(tmp_path)
    for name in ("challenge.py", "challenge.html"):
        path = directory / name
        path.write_text(re.sub(r"\bB\b", "out", path.read_text()))
    imported = import_challenge(directory)
    assert "{name: out, dtype: float32, direction: out, shape: [N]}" in imported.spec_text
    spec = imported.write(tmp_path / "specs" / imported.spec_name)[0]
    starters = render_starters(load_spec(spec).spec)
    assert "out_: Pointer[Float32, MutUntrackedOrigin]" in starters["starter/starter.mojo"]
    assert "float* out, int N)" in starters["starter/starter.cu"]
    assert "out: torch.Tensor" in starters["starter/starter.pytorch.py"]


def test_the_cli_says_why_an_import_fails(tmp_path: Path, runner):
    directory = make(tmp_path, out_shape="2", out_shape_n="n % 7 + 3")
    result = runner.invoke(app, ["import", str(directory), "-o", str(tmp_path)])
    assert result.exit_code == 1
    assert "cannot import" in result.output and "not representable" in result.output
    flat = tmp_path / "301_double"
    flat.mkdir()
    for name in ("challenge.py", "challenge.html"):
        (flat / name).write_text((directory / name).read_text())
    result = runner.invoke(app, ["import", str(flat)])
    assert result.exit_code == 1 and "not easy, medium or hard" in result.output


def test_a_module_parameter_is_refused_naming_the_construct(tmp_path: Path):
    directory = make(tmp_path)
    path = directory / "challenge.py"
    text = path.read_text()
    assert '"B": (ctypes.POINTER(ctypes.c_float), "out")' in text
    path.write_text(
        text.replace('"B": (ctypes.POINTER(ctypes.c_float), "out")', '"B": (torch.nn.Module, "in")')
    )
    with pytest.raises(ImportFailure, match="'B' is a torch.nn.Module"):
        import_challenge(directory)
