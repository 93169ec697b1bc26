"""`chgen check --deep` runs reference_impl_jax against reference_impl on every case (D008) and
checks its parameters (P019), on a tree of the public form (fixtures/public_style/jax_references,
ours) and on copies of it with one mistake each."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from generator.checks.registry import RULES
from generator.cli import app
from tests.conftest import ROOT

TREE = ROOT / "tests" / "importer" / "fixtures" / "public_style" / "jax_references"
SOFTCAP = "medium/209_softcap_rows"
ROW_MAX = "medium/210_row_max"
#: copy of a fixture -> (its folder, the edit to its reference_impl_jax)
MISTAKES = {
    "medium/301_scaled_by_rows": (SOFTCAP, "/ math.sqrt(cols)\n\n", "/ math.sqrt(rows)\n\n"),
    "medium/302_misspelt": (SOFTCAP, "jnp.tanh(x / CAP)", "jnp.tanhh(x / CAP)"),
    "medium/303_swapped": (
        SOFTCAP,
        "def reference_impl_jax(self, x, rows, cols):",
        "def reference_impl_jax(self, x, cols, rows):",
    ),
    "medium/304_one_output": (
        ROW_MAX,
        "return jnp.max(x, axis=1), jnp.argmax(x, axis=1).astype(jnp.int32)",
        "return jnp.max(x, axis=1)",
    ),
    "medium/305_argmin": (ROW_MAX, "jnp.argmax(x, axis=1)", "jnp.argmin(x, axis=1)"),
}


def findings(runner, tree: Path) -> dict:
    result = runner.invoke(
        app, ["check", str(tree), "--deep", "--select", "D008,P019", "--format", "json"]
    )
    data = json.loads(result.output)
    found: dict = {}
    for finding in data:
        challenge = "/".join(Path(finding["path"]).parts[-3:-1])
        finding["message"] = finding["message"].removesuffix("; " + RULES[finding["code"]].fix)
        found.setdefault(challenge, []).append(finding)
    return found


def line_of(path: Path, needle: str) -> int:
    return next(n for n, line in enumerate(path.read_text().splitlines(), 1) if needle in line)


def test_jax_references_that_agree_pass_and_each_mistake_is_named(runner, tmp_path: Path):
    shutil.copytree(TREE / "challenges", tmp_path / "challenges")
    for name, (source, old, new) in MISTAKES.items():
        shutil.copytree(TREE / "challenges" / source, tmp_path / "challenges" / name)
        path = tmp_path / "challenges" / name / "challenge.py"
        text = path.read_text()
        assert text.count(old) == 1, old
        path.write_text(text.replace(old, new))
    found = findings(runner, tmp_path)
    assert SOFTCAP not in found and ROW_MAX not in found  # both agree on every case
    assert sorted(found) == sorted(MISTAKES)
    for items in found.values():
        assert len(items) == 1, items
    py = {name: tmp_path / "challenges" / name / "challenge.py" for name in MISTAKES}

    (scaled,) = found["medium/301_scaled_by_rows"]
    assert scaled["code"] == "D008"
    assert scaled["line"] == line_of(py["medium/301_scaled_by_rows"], "def reference_impl_jax")
    # the example (1 x 4) is 2 times too large where it is not 0, the largest element worst; the
    # one-element and all-zero cases (rows = cols, zeros) agree
    assert scaled["message"] == (
        "reference_impl_jax disagrees with reference_impl on the example: y[0, 3] = 28.9208 but "
        "reference_impl gives 14.4604 (3 of 4 element(s) are beyond atol=1e-05, rtol=1e-05); "
        "5 of 7 cases disagree"
    )
    (misspelt,) = found["medium/302_misspelt"]
    assert misspelt["line"] == line_of(py["medium/302_misspelt"], "jnp.tanhh")
    assert misspelt["message"].startswith(
        "reference_impl_jax failed on the example: AttributeError: module 'jax.numpy' has no "
        "attribute 'tanhh'"
    )
    (swapped,) = found["medium/303_swapped"]
    assert swapped["code"] == "P019"
    assert swapped["message"] == (
        "reference_impl_jax takes (x, cols, rows); the in/inout tensors and scalars are "
        "(x, rows, cols)"
    )
    (one,) = found["medium/304_one_output"]
    assert one["message"] == (
        "reference_impl_jax disagrees with reference_impl on the example: it returns one array; "
        "the outputs are a tuple (values, indices); 6 of 6 cases disagree"
    )
    (argmin,) = found["medium/305_argmin"]
    # integer outputs compare exactly; the one-column cases agree
    assert argmin["message"] == (
        "reference_impl_jax disagrees with reference_impl on the example: indices[0] = 0 but "
        "reference_impl gives 1 (2 of 2 element(s) differ); 4 of 6 cases disagree"
    )


def test_jax_is_imported_only_for_a_challenge_that_has_a_jax_reference():
    """The deep rules of a challenge without reference_impl_jax never import JAX."""
    plain = ROOT / "tests" / "importer" / "fixtures" / "public_style" / "challenges" / "medium"
    program = f"""
import sys
from pathlib import Path
from generator.challenge.pyfile import read_challenge_py
from generator.checks import deep
from generator.checks.report import Options, Report
from generator.checks.source import ChallengeDir

for folder in ({str(plain / "202_row_rescale")!r}, {str(TREE / "challenges" / SOFTCAP)!r}):
    ch = ChallengeDir(Path(folder), folder)
    source = ch.file("challenge.py")
    report = Report(Options(deep=True))
    deep.check_here([ch], {{ch.path: read_challenge_py(source.text, source.display)}}, report)
    print("jax" in sys.modules, [f.code for f in report.findings if f.code == "D008"])
"""
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, cwd=ROOT, timeout=600
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["False []", "True []"]
