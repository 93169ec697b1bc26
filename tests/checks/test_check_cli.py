"""`chgen check`: targets, output formats, exit codes, --select/--ignore, and the static tier's
promise not to import torch."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from check_fixtures import EASY, MEDIUM, ROOT, make_fixture
from typer.testing import CliRunner

from generator.checks.registry import RULES
from generator.checks.report import Options
from generator.checks.runner import TargetError, collect, run
from generator.cli import app

LINE_RE = re.compile(r"^(?P<path>[^:]+):(?P<line>\d+):(?P<col>\d+): (?P<code>[A-Z]\d{3}) .+$")


@pytest.fixture
def broken(tmp_path: Path):
    """142 with one error (P005)."""
    fx = make_fixture(tmp_path, MEDIUM)
    fx.edit("challenge.py", 'name = "RMS Norm Backward"', 'name = "RMS Norm (Backward"')
    return fx


def invoke(*args: str):
    return CliRunner().invoke(app, ["check", *args])


def test_generated_tree_is_clean() -> None:
    """Our own tree passes every static, formatter and deep rule, P017's default range included."""
    result = run([ROOT / "generated"], Options(deep=True, formatters=True))
    assert [f.render() for f in result.findings] == []
    assert result.challenges >= 1


def test_human_output_and_exit_code(broken) -> None:
    result = invoke(str(broken.root))
    assert result.exit_code == 1
    lines = result.stdout.strip().split("\n")
    findings, summary = lines[:-1], lines[-1]
    assert findings and all(LINE_RE.match(line) for line in findings)
    assert any(" P005 " in line for line in findings)
    assert re.match(
        r"^1 error\(s\), \d+ warning\(s\) in 1 challenge\(s\) \(\d+\.\d\d s\)$", summary
    )


def test_json_output(broken) -> None:
    result = invoke(str(broken.root), "--format", "json")
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert data and all(
        set(item) == {"path", "line", "col", "code", "severity", "message"} for item in data
    )
    p005 = [item for item in data if item["code"] == "P005"]
    assert p005 and p005[0]["severity"] == "error" and p005[0]["path"].endswith("challenge.py")


def test_warnings_alone_exit_zero(tmp_path: Path) -> None:
    fx = make_fixture(tmp_path, MEDIUM)
    result = invoke(str(fx.root), "--cases", "1:2")
    assert result.exit_code == 0
    assert " P017 " in result.stdout and "0 error(s), 1 warning(s)" in result.stdout


def test_select_and_ignore(broken) -> None:
    only_warnings = invoke(str(broken.root), "--select", "P017", "--cases", "1:2")
    assert only_warnings.exit_code == 0 and " P005 " not in only_warnings.stdout
    ignored = invoke(str(broken.root), "--ignore", "P005,P017")
    assert ignored.exit_code == 0 and ignored.stdout.startswith("0 error(s)")
    by_prefix = invoke(str(broken.root), "--select", "p0")
    assert by_prefix.exit_code == 1 and " P005 " in by_prefix.stdout


def test_usage_errors_exit_two(tmp_path: Path) -> None:
    assert invoke(str(tmp_path / "missing")).exit_code == 2
    assert invoke(str(ROOT / "generated"), "--select", "X9").exit_code == 2
    assert invoke(str(ROOT / "generated"), "--format", "xml").exit_code == 2
    assert invoke(str(ROOT / "generated"), "--cases", "9:1").exit_code == 2
    assert invoke(str(ROOT / "generated"), "--against", str(tmp_path)).exit_code == 2


def test_list_rules() -> None:
    result = invoke("--list-rules")
    assert result.exit_code == 0
    assert all(code in result.stdout for code in RULES)


def test_targets_from_files_and_folders(tmp_path: Path) -> None:
    fx = make_fixture(tmp_path, MEDIUM)
    starter = fx.challenge / "starter" / "starter.cu"
    for target in (fx.root, fx.root / "challenges", fx.challenge.parent, fx.challenge, starter):
        targets = collect([target])
        assert [c.path for c in targets.challenges] == [fx.challenge], target
    assert collect([fx.root]).trees and not collect([fx.challenge]).trees
    with pytest.raises(TargetError):
        collect([tmp_path / "nothing-here"])


def test_display_paths_stay_as_given(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fx = make_fixture(tmp_path, MEDIUM)
    fx.edit("challenge.py", 'name = "RMS Norm Backward"', 'name = "RMS (Backward"')
    monkeypatch.chdir(tmp_path)
    found = run([Path("tree")], Options(select=("P005",))).findings
    assert [f.path for f in found] == ["tree/challenges/medium/142_rms_norm_backward/challenge.py"]
    found = run([Path("tree/challenges/medium/142_rms_norm_backward/challenge.py")]).findings
    assert "tree/challenges/medium/142_rms_norm_backward/challenge.py" in {f.path for f in found}


def test_easy_golden_challenge_is_clean(tmp_path: Path) -> None:
    fx = make_fixture(tmp_path, EASY)
    assert [f.render() for f in run([fx.root], Options(cases=(1, 100))).findings] == []


def test_two_processes_find_what_one_finds(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    shutil.copytree(ROOT / "tests" / "golden" / "tree" / "challenges", tree / "challenges")
    shutil.copytree(
        ROOT / "generated" / "challenges" / "medium",
        tree / "challenges" / "medium",
        dirs_exist_ok=True,
    )
    serial = run([tree], Options(jobs=1)).findings
    parallel = run([tree], Options(jobs=2)).findings
    assert serial and parallel == serial


def test_static_tier_does_not_import_torch() -> None:
    """The rules import no toolchain, no torch and not even pydantic (the command line's own
    framework may load pydantic; torch and the toolchains stay out either way)."""
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from generator.checks import run\n"
        f"run([Path({str(ROOT / 'generated')!r})])\n"
        "print(sorted(m for m in ('torch', 'jax', 'triton', 'cutlass', 'numpy', 'pydantic') "
        "if m in sys.modules))\n"
        "from generator.cli import app\n"
        "from typer.testing import CliRunner\n"
        f"CliRunner().invoke(app, ['check', {str(ROOT / 'generated')!r}])\n"
        "print(sorted(m for m in ('torch', 'jax', 'triton', 'cutlass', 'numpy') "
        "if m in sys.modules))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert result.stdout.split() == ["[]", "[]"]


def test_selecting_a_slow_rule_runs_its_tier(tmp_path: Path) -> None:
    fx = make_fixture(tmp_path, MEDIUM)
    fx.edit("starter/starter.cu", "const float* x,", "const float  *x,")
    assert [f.code for f in fx.run(["F003"])] == ["F003"]
    assert fx.run(["S"]) == []


def test_default_paths_in_a_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shutil.copytree(ROOT / "generated", tmp_path / "generated")
    shutil.copytree(ROOT / "specs", tmp_path / "specs")
    (tmp_path / ".pre-commit-config.yaml").write_text("repos: []\n")
    monkeypatch.chdir(tmp_path)
    result = invoke("--cases", "1:100")
    assert result.exit_code == 0, result.stdout
    assert "spec(s)" in result.stdout.strip().split("\n")[-1]


@pytest.mark.parametrize(
    "relative",
    [
        "challenge.py",
        "challenge.html",
        "starter/starter.cu",
        "starter/starter.mojo",
        "starter/starter.jax.py",
        "starter/starter.cute.py",
    ],
)
@pytest.mark.parametrize("content", ["", "\x00\xff garbage (((", "def solve(\n", "<p>\\(\\[</p"])
def test_broken_files_give_findings_not_tracebacks(tmp_path: Path, relative, content) -> None:
    fx = make_fixture(tmp_path, MEDIUM)
    fx.path(relative).write_bytes(content.encode("latin-1"))
    result = run([fx.root], Options(deep=True))
    assert any(f.path.endswith(relative) for f in result.findings)


def test_the_default_case_range_is_the_public_sets() -> None:
    """4 to 15: what the public set's challenges have (benchmarks/case_counts.py), 142 and 143
    (15 and 12 cases) inside it, and what P017's advice names."""
    assert Options().cases == (4, 15)
    assert "expected_cases: [MIN, MAX]" in RULES["P017"].fix
    result = run([ROOT / "generated"], Options(select=["P017"]))
    assert result.findings == [] and result.challenges >= 2


def test_case_count_comes_from_deep_when_static_cannot_tell(tmp_path: Path) -> None:
    fx = make_fixture(tmp_path, MEDIUM)
    fx.edit(
        "challenge.py",
        "    def generate_functional_test(self) -> List[Dict[str, Any]]:\n",
        "    def generate_functional_test(self) -> List[Dict[str, Any]]:\n"
        "        return self._cases()\n\n"
        "    def _cases(self) -> List[Dict[str, Any]]:\n",
    )
    assert fx.run(["P017"], cases=(1, 2)) == []
    found = fx.run(["P017"], cases=(1, 2), deep=True)
    assert [f.code for f in found] == ["P017"] and "returns" in found[0].message
