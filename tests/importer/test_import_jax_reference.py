"""reference_impl_jax through `chgen import` and back (fixtures/public_style/jax_references, ours).

The spec carries the method's body as reference_jax; what it reads from challenge.py's module (an
import of math, a constant) comes along as reference_helpers; a header with one parameter per line
where black would keep them on one is exploded_reference_jax. Generated again, the method is the
original's, byte for byte.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from generator.challenge.pyfile import read_challenge_py
from generator.cli import app
from generator.importer import import_challenge

TREE = Path(__file__).parent / "fixtures" / "public_style" / "jax_references"
MEDIUM = TREE / "challenges" / "medium"


def method_text(challenge_py: Path, name: str = "reference_impl_jax") -> str:
    read = read_challenge_py(challenge_py.read_text())
    node = read.methods[name]
    return "\n".join(read.lines[node.lineno - 1 : node.end_lineno])


@pytest.mark.parametrize("name", ["209_softcap_rows", "210_row_max"])
def test_reference_impl_jax_is_carried_and_regenerated_as_written(name, runner, tmp_path: Path):
    challenge = MEDIUM / name
    imported = import_challenge(challenge)
    assert "\nreference_jax: |" in imported.spec_text
    notes = [line for line in imported.report.lines() if "reference_impl_jax" in line]
    assert not [line for line in notes if "dropped" in line]
    spec = imported.write(tmp_path / "specs" / imported.spec_name)[0]
    result = runner.invoke(app, ["generate", "--out", str(tmp_path / "tree"), str(spec)])
    assert result.exit_code == 0, result.output
    regenerated = tmp_path / "tree" / "challenges" / "medium" / name / "challenge.py"
    assert method_text(regenerated) == method_text(challenge / "challenge.py")


def test_what_the_jax_reference_reads_from_the_module_comes_along():
    lines = import_challenge(MEDIUM / "209_softcap_rows").spec_text.splitlines()
    helpers = lines[lines.index("reference_helpers: |") :]
    assert helpers[1:4] == ["  import math", "", "  CAP = 30.0"]
    # math is imported at module level, as in the original: not moved into the torch body
    reference = lines[lines.index("reference: |") + 1 :]
    body = next(line for line in reference if line.strip() and not line.startswith("  assert "))
    assert body == "  y.copy_(CAP * torch.tanh(x / CAP) / math.sqrt(cols))"
    assert "exploded_reference_jax" not in "\n".join(lines)


def test_a_header_with_a_trailing_comma_and_a_blank_first_line_are_kept():
    imported = import_challenge(MEDIUM / "210_row_max")
    text = imported.spec_text
    assert "reference_jax: |\n\n  # the first index of a row's maximum" in text
    assert "\nexploded_reference_jax: true\n" in text
    assert any("lists one parameter per line" in line for line in imported.report.lines())


def test_a_jax_reference_taking_other_parameters_is_dropped_and_said(tmp_path: Path):
    copy = tmp_path / "challenges" / "medium" / "209_softcap_rows"
    shutil.copytree(MEDIUM.parent, tmp_path / "challenges")
    path = copy / "challenge.py"
    text = path.read_text()
    header = "def reference_impl_jax(self, x, rows, cols):"
    path.write_text(text.replace(header, header.replace("rows, cols", "cols, rows")))
    imported = import_challenge(copy)
    assert "reference_jax" not in imported.spec_text.split("\nid: ")[1]
    assert any(
        "reference_impl_jax takes (x, cols, rows), not the in/inout tensors and scalars "
        "(x, rows, cols); it is dropped (not representable)" in line
        for line in imported.report.lines()
    )


def test_a_jax_reference_the_original_already_breaks_is_kept_and_tolerated(runner, tmp_path: Path):
    """A reference_impl_jax that fails with today's JAX (a keyword JAX removed) is the original's
    own mistake: kept as written, D008 tolerated and said, so the tree still generates."""
    shutil.copytree(MEDIUM.parent, tmp_path / "challenges")
    path = tmp_path / "challenges" / "medium" / "210_row_max" / "challenge.py"
    text = path.read_text()
    broken = "jnp.max(jnp.clip(x, a_min=-1e30), axis=1)"
    path.write_text(text.replace("jnp.max(x, axis=1)", broken))
    imported = import_challenge(path.parent)
    assert broken in imported.spec_text
    assert "D008" in yaml.safe_load(imported.spec_text)["tolerated_rules"]
    assert any("breaks rule(s) D008" in line for line in imported.report.lines())
    spec = imported.write(tmp_path / "specs" / imported.spec_name)[0]
    result = runner.invoke(app, ["generate", "--out", str(tmp_path / "tree"), str(spec)])
    assert result.exit_code == 0, result.output
