"""`chgen generate` refuses what `chgen check --formatters --deep` would flag in what it renders,
at the spec line that produced it, and writes nothing; `chgen check SPEC` says the same."""

from __future__ import annotations

import re
from pathlib import Path

from generator.cli import app

BROKEN_LATEX = ("by 2.\n  </p>", "by 2.\n    It computes \\( y_{i = 2 x_i \\).\n  </p>")
#: a long note is wrapped into comment lines; a long comment in the reference is not
LONG_REFERENCE_LINE = (
    "  y.copy_(2.0 * x)",
    "  y.copy_(2.0 * x)  # " + "a long remark that goes on " * 4,
)
LATER_CASE_FAILS = (
    "  y.copy_(2.0 * x)",
    "  assert x.shape[0] != 7, 'seven'\n  y.copy_(2.0 * x)",
)
SEVENTH_CASE = (
    "    scalars: {N: 100000}\n",
    "    scalars: {N: 100000}\n  - name: seven\n    scalars: {N: 7}\n",
)


#: a JAX reference that agrees on every case but one of N = 7
JAX_REFERENCE = (
    "  y.copy_(2.0 * x)\n",
    "  y.copy_(2.0 * x)\n\nreference_jax: |\n  import jax.numpy as jnp\n\n"
    "  return jnp.where(N == 7, 0.0, 2.0 * x)\n",
)


def new_spec(workdir: Path, runner) -> Path:
    result = runner.invoke(app, ["new", "my_thing", "--difficulty", "easy", "--id", "900"])
    assert result.exit_code == 0, result.output
    return workdir / "specs" / "900_my_thing.yaml"


def edit(path: Path, *replacements) -> None:
    text = path.read_text()
    for old, new in replacements:
        assert old in text, old
        text = text.replace(old, new, 1)
    path.write_text(text)


def line_of(path: Path, needle: str) -> int:
    return next(n for n, line in enumerate(path.read_text().splitlines(), 1) if needle in line)


def test_generate_reports_rendered_findings_at_the_spec_and_writes_nothing(workdir, runner):
    spec = new_spec(workdir, runner)
    edit(spec, BROKEN_LATEX, LATER_CASE_FAILS, LONG_REFERENCE_LINE, SEVENTH_CASE)
    before = sorted(p.relative_to(workdir) for p in (workdir / "generated").rglob("*"))
    result = runner.invoke(app, ["generate", str(spec.relative_to(workdir))])
    assert result.exit_code == 1
    shown = "specs/900_my_thing.yaml"
    latex, note, seven = (
        line_of(spec, "It computes"),
        line_of(spec, "a long remark"),
        line_of(spec, "name: seven"),
    )
    assert (
        f"{shown}:{latex}:5: H006 `y_{{i = 2 x_i`: 1 '{{' never closed; fix the formula (fix it "
        "in the spec: it renders into challenge.html line 3)"
    ) in result.output
    assert f"{shown}:{note}:3: F002 E501 line too long (120 > 100 characters)" in result.output
    assert (
        f"{shown}:{seven}:11: D005 reference_impl failed on case 'seven' (functional case 5 of 5): "
        in result.output
    )
    assert "AssertionError: seven" in result.output
    assert "nothing was written" in result.output, result.output
    after = sorted(p.relative_to(workdir) for p in (workdir / "generated").rglob("*"))
    assert after == before
    checked = runner.invoke(app, ["check", str(spec.relative_to(workdir))])
    assert checked.exit_code == 1
    assert f"{shown}:{latex}:5: G001 H006" in checked.output


def test_the_skeleton_generates_and_validates_cleanly(workdir, runner):
    spec = new_spec(workdir, runner)
    result = runner.invoke(app, ["generate", str(spec.relative_to(workdir))])
    assert result.exit_code == 0, result.output
    checked = runner.invoke(app, ["check", "generated", "--formatters"])
    assert "0 error(s), 0 warning(s)" in checked.output, checked.output


def test_a_long_case_note_is_wrapped_into_comment_lines(workdir, runner):
    spec = new_spec(workdir, runner)
    note = "a long note that goes on " * 5
    edit(spec, ("  - name: large\n", f"  - name: large\n    note: {note.strip()}\n"))
    result = runner.invoke(app, ["generate", str(spec.relative_to(workdir))])
    assert result.exit_code == 0, result.output
    challenge = next((workdir / "generated").rglob("challenge.py")).read_text()
    comment = [line.strip() for line in challenge.splitlines() if "a long note" in line]
    assert len(comment) >= 2 and all(len(line) <= 100 for line in challenge.splitlines())
    assert " ".join(c.removeprefix("# ") for c in comment) == f"large: {note.strip()}"


def test_a_tolerated_rule_does_not_stop_generation_and_codes_are_checked(workdir, runner):
    spec = new_spec(workdir, runner)
    edit(spec, BROKEN_LATEX)
    with spec.open("a") as out:
        out.write("tolerated_rules: [H006]\n")
    result = runner.invoke(app, ["generate", str(spec.relative_to(workdir))])
    assert result.exit_code == 0, result.output
    edit(spec, ("tolerated_rules: [H006]", "tolerated_rules: [H0006, G002]"))
    result = runner.invoke(app, ["generate", str(spec.relative_to(workdir))])
    assert result.exit_code == 1
    line = line_of(spec, "tolerated_rules")
    shown = "specs/900_my_thing.yaml"
    assert f"{shown}:{line}:19: 'H0006' is not a rule code (did you mean 'H006'?)" in result.output
    assert (
        f"{shown}:{line}:26: G002 is about the spec itself and cannot be tolerated" in result.output
    )


def test_a_jax_reference_that_disagrees_is_refused_naming_the_case_and_element(workdir, runner):
    spec = new_spec(workdir, runner)
    edit(spec, JAX_REFERENCE, SEVENTH_CASE)
    before = sorted(p.relative_to(workdir) for p in (workdir / "generated").rglob("*"))
    result = runner.invoke(app, ["generate", str(spec.relative_to(workdir))])
    assert result.exit_code == 1
    errors = [line for line in result.output.splitlines() if line.startswith("error ")]
    assert len(errors) == 1, result.output
    at = line_of(spec, "reference_jax: |")
    assert re.match(
        rf"error specs/900_my_thing.yaml:{at}:16: D008 reference_impl_jax disagrees with "
        r"reference_impl on case 'seven' \(functional case 5 of 5\): y\[\d\] = 0 "
        r"but reference_impl gives "
        r"-?[\d.]+ \(7 of 7 element\(s\) are beyond atol=1e-05, rtol=1e-05\); ",
        errors[0],
    ), errors[0]
    assert sorted(p.relative_to(workdir) for p in (workdir / "generated").rglob("*")) == before
    # where it raises, the error is at the spec line that raised
    edit(spec, ("jnp.where(N == 7, 0.0, 2.0 * x)", "jnp.wher(N == 7, 0.0, 2.0 * x)"))
    result = runner.invoke(app, ["generate", str(spec.relative_to(workdir))])
    assert result.exit_code == 1
    assert (
        f"specs/900_my_thing.yaml:{line_of(spec, 'jnp.wher(')}:3: D008 reference_impl_jax failed "
        "on the example: AttributeError: module 'jax.numpy' has no attribute 'wher'"
    ) in result.output
    # once it agrees, it is generated as reference_impl_jax
    edit(spec, ("jnp.wher(N == 7, 0.0, 2.0 * x)", "2.0 * x"))
    result = runner.invoke(app, ["generate", str(spec.relative_to(workdir))])
    assert result.exit_code == 0, result.output
    written = workdir / "generated" / "challenges" / "easy" / "900_my_thing" / "challenge.py"
    assert "    def reference_impl_jax(self, x, N):\n        import jax.numpy as jnp\n" in (
        written.read_text()
    )
