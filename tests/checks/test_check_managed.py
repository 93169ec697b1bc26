"""`chgen check` on a tree chgen manages (.chgen/manifest.json): a spec's tolerated_rules excuse
its findings while the file is as chgen wrote it, and challenges no spec owns are listed apart."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from check_fixtures import EASY, MEDIUM, make_fixture
from typer.testing import CliRunner

from generator.cli import app
from generator.tree import MANIFEST, Manifest, sha256

OWNER = "142_rms_norm_backward"


def invoke(*args: str):
    return CliRunner().invoke(app, ["check", *args])


def record(root: Path, challenge: Path, owner: str) -> None:
    """The manifest a `chgen generate` of `owner` into `root` leaves: each file with its hash."""
    manifest = Manifest.read(root)
    for path in sorted(p for p in challenge.rglob("*") if p.is_file()):
        rel = path.relative_to(root).as_posix()
        manifest.files[rel] = {"owner": owner, "sha256": sha256(path.read_text())}
    (root / MANIFEST).parent.mkdir(exist_ok=True)
    (root / MANIFEST).write_text(manifest.render())


def managed(tmp_path: Path, tolerated: str = "[P005]"):
    """142 with one error (P005), recorded in the manifest; its spec tolerates `tolerated`."""
    fx = make_fixture(tmp_path, MEDIUM)
    fx.edit("challenge.py", 'name = "RMS Norm Backward"', 'name = "RMS Norm (Backward"')
    record(fx.root, fx.challenge, OWNER)
    (fx.root / "specs").mkdir()
    (fx.root / "specs" / f"{OWNER}.yaml").write_text(f"id: 142\ntolerated_rules: {tolerated}\n")
    return fx


def test_a_listed_rule_on_an_unchanged_file_is_tolerated(tmp_path: Path) -> None:
    fx = managed(tmp_path)
    result = invoke(str(fx.root))
    assert result.exit_code == 0, result.stdout
    lines = result.stdout.strip().split("\n")
    spec = fx.root / "specs" / f"{OWNER}.yaml"
    assert any(" P005 " in line and line.endswith(f"[tolerated by {spec}]") for line in lines)
    assert lines[-1].startswith("0 error(s), 0 warning(s), 1 tolerated in 1 challenge(s)")
    data = json.loads(invoke(str(fx.root), "--format", "json").stdout)
    assert [(d["code"], d.get("tolerated_by")) for d in data] == [("P005", str(spec))]


def test_an_edit_after_the_manifest_is_counted_again(tmp_path: Path) -> None:
    fx = managed(tmp_path)
    fx.edit("challenge.py", 'name = "RMS Norm (Backward"', 'name = "RMS Norm (Backward)("')
    result = invoke(str(fx.root))
    assert result.exit_code == 1
    assert "tolerated" not in result.stdout
    assert result.stdout.strip().split("\n")[-1].startswith("1 error(s)")


def test_a_rule_the_spec_does_not_list_is_counted(tmp_path: Path) -> None:
    fx = managed(tmp_path, tolerated="[H013]")
    result = invoke(str(fx.root))
    assert result.exit_code == 1
    assert "tolerated" not in result.stdout


def test_without_the_spec_nothing_is_tolerated(tmp_path: Path) -> None:
    fx = managed(tmp_path)
    shutil.rmtree(fx.root / "specs")
    assert invoke(str(fx.root)).exit_code == 1
    # the specs folder named with --specs
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / f"{OWNER}.yaml").write_text("tolerated_rules: [P005]\n")
    assert invoke(str(fx.root), "--specs", str(elsewhere)).exit_code == 0


def test_a_finding_on_the_directory_needs_the_whole_challenge_unchanged(tmp_path: Path) -> None:
    fx = managed(tmp_path, tolerated="[L006, P005]")
    (fx.challenge / "starter" / "starter.mojo").unlink()  # L006: a starter file is missing
    record(fx.root, fx.challenge, OWNER)
    manifest = json.loads((fx.root / MANIFEST).read_text())
    manifest["files"] = {p: e for p, e in manifest["files"].items() if "starter.mojo" not in p}
    (fx.root / MANIFEST).write_text(json.dumps(manifest))
    assert invoke(str(fx.root)).exit_code == 0
    fx.edit("challenge.html", "<p>", "<p> ")
    result = invoke(str(fx.root), "--select", "L006")
    assert result.exit_code == 1 and "tolerated" not in result.stdout


def add_unmanaged(fx) -> Path:
    """The easy fixture challenge beside the managed one, with an error, in no manifest entry."""
    other = make_fixture(fx.root.parent / "other", EASY)
    target = fx.root / "challenges" / "easy" / other.challenge.name
    shutil.copytree(other.challenge, target)
    py = target / "challenge.py"
    py.write_text(py.read_text().replace('name = "Vector Addition"', 'name = "Vector (Addition"'))
    return target


def test_challenges_no_spec_owns_are_listed_apart_in_a_managed_tree(tmp_path: Path) -> None:
    fx = managed(tmp_path)
    add_unmanaged(fx)
    result = invoke(str(fx.root))
    assert result.exit_code == 0, result.stdout
    lines = result.stdout.strip().split("\n")
    header = lines.index("not managed by chgen (no spec): ids 1, 1 finding(s)")
    assert " P005 " in lines[header + 1] and "1_vector_add" in lines[header + 1]
    assert lines[-1].startswith("0 error(s), 0 warning(s), 1 tolerated, 1 not managed by chgen")
    everything = invoke(str(fx.root), "--all")
    assert everything.exit_code == 1
    assert "not managed" not in everything.stdout


def test_a_plain_tree_counts_every_finding(tmp_path: Path) -> None:
    fx = managed(tmp_path)
    add_unmanaged(fx)
    (fx.root / MANIFEST).unlink()
    result = invoke(str(fx.root))
    assert result.exit_code == 1
    assert "not managed" not in result.stdout and "tolerated" not in result.stdout
    assert result.stdout.strip().split("\n")[-1].startswith("2 error(s)")
