"""`chgen generate` / `--check` / `new`: deterministic, atomic, and careful with hand edits."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from generator import tree
from generator.cli import app
from tests.conftest import ROOT

CHALLENGE = Path("generated/challenges/medium/142_rms_norm_backward")


def snapshot(root: Path) -> dict:
    """Every file's hash, the manifest included (it holds no cache, see tree.py)."""
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def test_repository_tree_is_in_sync_with_specs(runner, monkeypatch):
    monkeypatch.chdir(ROOT)
    result = runner.invoke(app, ["generate", "--check"])
    assert result.exit_code == 0, result.output


def test_generation_is_deterministic(workdir: Path, runner):
    import shutil

    shutil.rmtree(workdir / "generated")
    assert runner.invoke(app, ["generate"]).exit_code == 0
    first = snapshot(workdir / "generated")
    shutil.rmtree(workdir / "generated")
    assert runner.invoke(app, ["generate"]).exit_code == 0
    assert snapshot(workdir / "generated") == first
    # and equal to the committed tree
    assert first == snapshot(ROOT / "generated")


def test_check_reports_a_diff_and_writes_nothing(workdir: Path, runner):
    spec = workdir / "specs" / "142_rms_norm_backward.yaml"
    spec.write_text(spec.read_text().replace("name: RMS Norm Backward", "name: RMS Norm Grad"))
    before = snapshot(workdir / "generated")
    result = runner.invoke(app, ["generate", "--check"])
    assert result.exit_code == 1
    assert '-    name = "RMS Norm Backward"' in result.output
    assert '+    name = "RMS Norm Grad"' in result.output
    assert snapshot(workdir / "generated") == before


def test_hand_edits_are_kept_unless_forced(workdir: Path, runner):
    edited = workdir / CHALLENGE / "starter" / "starter.cu"
    edited.write_text(edited.read_text() + "// my note\n")
    spec = workdir / "specs" / "142_rms_norm_backward.yaml"
    spec.write_text(spec.read_text().replace("name: RMS Norm Backward", "name: RMS Norm Grad"))
    before = snapshot(workdir / "generated")
    result = runner.invoke(app, ["generate"])
    assert result.exit_code == 1
    assert "edited by hand" in result.output and "starter.cu" in result.output
    assert snapshot(workdir / "generated") == before
    result = runner.invoke(app, ["generate", "--force"])
    assert result.exit_code == 0, result.output
    assert "// my note" not in edited.read_text()
    assert 'name = "RMS Norm Grad"' in (workdir / CHALLENGE / "challenge.py").read_text()


def test_a_hand_edit_gets_the_same_advice_from_check_generate_and_g002(workdir: Path, runner):
    """--check, generate and G002 all name the hand edit and both ways out of it."""
    edited = workdir / CHALLENGE / "starter" / "starter.cu"
    edited.write_text(edited.read_text() + "// my note\n")
    spec = "specs/142_rms_norm_backward.yaml"
    said = {
        "check": runner.invoke(app, ["generate", "--check"]),
        "generate": runner.invoke(app, ["generate"]),
        "G002": runner.invoke(app, ["check", "--select", "G002", spec]),
    }
    for command, result in said.items():
        assert result.exit_code == 1, (command, result.output)
        text = " ".join(result.output.split())  # the console may wrap a long line
        assert "edited by hand" in text, (command, text)
        assert tree.HAND_EDIT_ADVICE in text, (command, text)
    assert "run 'chgen generate' --force" not in said["G002"].output


def test_interrupted_write_leaves_the_old_tree(workdir: Path, runner, monkeypatch):
    spec = workdir / "specs" / "142_rms_norm_backward.yaml"
    spec.write_text(spec.read_text().replace("name: RMS Norm Backward", "name: RMS Norm Grad"))
    before = snapshot(workdir / "generated")

    def boom(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(tree, "_swap", boom)
    result = runner.invoke(app, ["generate"])
    assert result.exit_code != 0
    assert snapshot(workdir / "generated") == before
    assert not list(workdir.glob(".generated*"))  # no lock file, no copy beside the tree
    assert sorted(p.name for p in (workdir / "generated" / ".chgen").iterdir()) == ["manifest.json"]


def test_what_an_interrupted_run_left_in_the_state_folder_is_cleared(workdir: Path, runner):
    staged = workdir / "generated" / ".chgen" / "staging" / "unit-999" / "new"
    staged.mkdir(parents=True)
    (staged / "challenge.py").write_text("half a challenge\n")
    result = runner.invoke(app, ["generate"])
    assert result.exit_code == 0, result.output
    assert snapshot(workdir / "generated") == snapshot(ROOT / "generated")
    assert not (workdir / "generated" / ".chgen" / "staging").exists()


def test_new_writes_a_spec_that_generates(workdir: Path, runner):
    next_id = max(int(p.name.split("_")[0]) for p in (workdir / "specs").glob("*.yaml")) + 1
    result = runner.invoke(app, ["new", "leaky_relu_backward", "--difficulty", "easy"])
    assert result.exit_code == 0, result.output
    path = workdir / "specs" / f"{next_id}_leaky_relu_backward.yaml"
    assert path.is_file()
    result = runner.invoke(app, ["generate"])
    assert result.exit_code == 0, result.output
    starter = (
        workdir / f"generated/challenges/easy/{next_id}_leaky_relu_backward/starter/starter.cu"
    )
    assert "leaky_relu_backward_kernel<<<blocksPerGrid, threadsPerBlock>>>" in starter.read_text()
    result = runner.invoke(app, ["check", "generated"])
    assert result.exit_code == 0 and "0 error(s), 0 warning(s)" in result.output, result.output


@pytest.mark.parametrize(
    "args, message",
    [
        (["new", "Bad-Slug", "-d", "easy"], "bad slug"),
        (["new", "ok_slug", "-d", "extreme"], "bad difficulty"),
        (["new", "ok_slug", "-d", "hard", "--id", "142"], "id 142 is already taken"),
        (["new", "rms_norm_backward", "-d", "hard"], "already used"),
    ],
)
def test_new_refuses_bad_input(workdir: Path, runner, args, message):
    result = runner.invoke(app, args)
    assert result.exit_code == 1
    assert message in result.output
    assert "Traceback" not in result.output
    assert sorted(p.name for p in (workdir / "specs").glob("*.yaml")) == sorted(
        p.name for p in (ROOT / "specs").glob("*.yaml")
    )


def test_new_avoids_ids_of_another_tree(workdir: Path, runner, tmp_path: Path):
    other = tmp_path / "other" / "challenges" / "hard" / "500_something"
    other.mkdir(parents=True)
    result = runner.invoke(
        app, ["new", "fresh", "-d", "hard", "--against", str(tmp_path / "other")]
    )
    assert result.exit_code == 0, result.output
    assert (workdir / "specs" / "501_fresh.yaml").is_file()


def test_duplicate_ids_across_specs_are_an_error(workdir: Path, runner):
    spec = workdir / "specs" / "142_rms_norm_backward.yaml"
    clone = workdir / "specs" / "142_rms_norm_copy.yaml"
    clone.write_text(spec.read_text().replace("slug: rms_norm_backward", "slug: rms_norm_copy"))
    result = runner.invoke(app, ["generate"])
    assert result.exit_code == 1
    assert "id 142 is also used by" in result.output


def test_an_edited_sidecar_svg_is_picked_up(workdir: Path, runner):
    svg = workdir / "specs" / "142_rms_norm_backward.svg"
    svg.write_text(svg.read_text().replace("Two reductions", "Two row-and-column reductions"))
    assert runner.invoke(app, ["generate", "--check"]).exit_code == 1
    result = runner.invoke(app, ["generate"])
    assert result.exit_code == 0, result.output
    assert "Two row-and-column reductions" in (workdir / CHALLENGE / "challenge.html").read_text()


def test_unchanged_specs_are_not_rendered_again(workdir: Path, runner):
    assert runner.invoke(app, ["generate"]).exit_code == 0  # fills this project's .chgen-cache
    result = runner.invoke(app, ["generate"])
    assert result.exit_code == 0 and " 0 rendered" in result.output, result.output
    (workdir / CHALLENGE / "challenge.html").write_text("<p>tampered</p>\n")
    result = runner.invoke(app, ["generate", "--check"])
    assert result.exit_code == 1  # a file that no longer matches its hash forces a real render
