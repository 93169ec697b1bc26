"""Starters an import keeps as written, and those it writes in chgen's form.

A starter that differs from chgen's form where no rule of `chgen check` objects comes back byte
for byte (the spec's `kept_starters`); a Mojo starter on an older API comes back changed by the
Mojo 1.2 migration alone; a starter a rule flags is written in chgen's form, and the report says
which rule. The challenge is our own public-style fixture (fixtures/public_style, easy/201).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from generator.cli import app
from generator.importer import import_challenge
from generator.languages.mojo import upgrade

FIXTURE = Path(__file__).parent / "fixtures" / "public_style" / "challenges"
SCALE = "easy/201_scale_vector"

#: the CUDA launch over a local of its own, as several public easy starters write it
OWN_LAUNCH = """\
extern "C" void solve(const float* x, float* y, int N, float scale) {
    int total = N;
    int threadsPerBlock = 256;
    int blocksPerGrid = (total + threadsPerBlock - 1) / threadsPerBlock;
    scale_kernel<<<blocksPerGrid, threadsPerBlock>>>(x, y, total, scale);
    cudaDeviceSynchronize();
}
"""


def tree_with(tmp_path: Path, edits: dict) -> Path:
    """The fixture tree copied, with `edits` (starter file name -> (old, new)) applied."""
    tree = tmp_path / "public"
    shutil.copytree(FIXTURE / "core", tree / "challenges" / "core")
    shutil.copytree(FIXTURE / SCALE, tree / "challenges" / SCALE)
    for name, (old, new) in edits.items():
        path = tree / "challenges" / SCALE / "starter" / name
        text = path.read_text()
        assert old in text, (name, old)
        path.write_text(text.replace(old, new))
    return tree / "challenges" / SCALE


def regenerate(runner, imported, tmp_path: Path) -> Path:
    spec = imported.write(tmp_path / "specs" / imported.spec_name)[0]
    result = runner.invoke(app, ["generate", "--out", str(tmp_path / "tree"), str(spec)])
    assert result.exit_code == 0, result.output
    return tmp_path / "tree" / "challenges" / SCALE


def test_a_starter_no_rule_flags_comes_back_as_written(runner, tmp_path: Path):
    start = OWN_LAUNCH.split("\n", 1)[0]
    original = (FIXTURE / SCALE / "starter" / "starter.cu").read_text()
    ours = original[: original.index(start)] + OWN_LAUNCH
    challenge = tree_with(tmp_path, {"starter.cu": (original, ours)})
    imported = import_challenge(challenge)
    spec = yaml.safe_load(imported.spec_text)
    assert spec["kept_starters"]["cuda"] == ours
    note = next(line for line in imported.report.lines() if line.startswith("starter/starter.cu"))
    assert note.startswith("starter/starter.cu is kept as written (kept_starters); chgen's form:")
    regenerated = regenerate(runner, imported, tmp_path)
    for name in ("starter.cu", "starter.cute.py", "starter.jax.py", "starter.pytorch.py"):
        assert (regenerated / "starter" / name).read_text() == (
            challenge / "starter" / name
        ).read_text(), name


def test_a_starter_a_rule_flags_is_written_in_chgens_form(runner, tmp_path: Path):
    comment = "// x, y are device pointers (i.e. pointers to memory on the GPU)"
    challenge = tree_with(tmp_path, {"starter.cu": (comment, "// x and y live on the GPU")})
    imported = import_challenge(challenge)
    assert "cuda" not in (yaml.safe_load(imported.spec_text).get("kept_starters") or {})
    assert any(
        line.startswith("starter/starter.cu is written in chgen's form: the original breaks S007")
        for line in imported.report.lines()
    ), imported.report.lines()
    regenerated = regenerate(runner, imported, tmp_path)
    assert comment in (regenerated / "starter" / "starter.cu").read_text()


def test_an_old_mojo_starter_changes_by_the_migration_alone(runner, tmp_path: Path):
    challenge = tree_with(tmp_path, {})
    imported = import_challenge(challenge)
    mojo = (regenerate(runner, imported, tmp_path) / "starter" / "starter.mojo").read_text()
    original = (challenge / "starter" / "starter.mojo").read_text()
    # the author's names and launch arithmetic stay; the removed API is gone
    assert "    var BLOCK_SIZE: Int32 = 256\n" in original
    assert "        var BLOCK_SIZE: Int32 = 256\n" in mojo
    assert "        var num_blocks = ceildiv(N, BLOCK_SIZE)\n" in mojo
    assert "ctx.enqueue_function[scale_kernel](\n" in mojo
    assert "            x, y, N, scale, grid_dim=num_blocks, block_dim=BLOCK_SIZE\n" in mojo
    assert "    x: Pointer[Float32, ImmUntrackedOrigin],\n" in mojo
    assert "    y: Pointer[Float32, MutUntrackedOrigin],\n" in mojo
    assert ') abi("C"):\n    try:\n' in mojo and mojo.endswith("    except e:\n        print(e)\n")
    for old in ("std.gpu", "UnsafePointer", "MutExternalOrigin", "compile_function", "raises"):
        assert old not in mojo, old
    # every line of the original that names none of those is there as written
    old_api = ("std.gpu", "std.memory", "UnsafePointer", "raises", "compile_function", "_kernel")
    kept = [line.strip() for line in original.splitlines() if not any(o in line for o in old_api)]
    assert [line for line in kept if line not in {m.strip() for m in mojo.splitlines()}] == []
    note = next(line for line in imported.report.lines() if line.startswith("starter/starter.mojo"))
    assert "moved onto the current Mojo API" in note


OLD_MOJO = """\
from gpu.host import DeviceContext
from gpu.id import block_dim, block_idx, thread_idx
from memory import UnsafePointer
from math import ceildiv


fn copy_kernel(a: UnsafePointer[Float32], b: UnsafePointer[Float32], n: Int32):
    pass


@export
def solve(a: UnsafePointer[Float32], b: UnsafePointer[Float32], n: Int32):
    pass
"""


def test_the_oldest_mojo_generation_is_moved_onto_1_2():
    new = upgrade(OLD_MOJO, {"a": "in", "b": "out"})
    assert new is not None
    assert new.splitlines()[:3] == [
        "from max.gpu.host import DeviceContext",
        "from max.gpu import block_dim, block_idx, thread_idx",
        "from std.math import ceildiv",
    ]
    assert "def copy_kernel(a: Pointer[Float32, ImmUntrackedOrigin], b: Pointer[Float32, " in new
    assert 'n: Int32) abi("C"):\n    pass\n' in new


@pytest.mark.parametrize(
    "old, new",
    [
        ("UnsafePointer[Float32]", "UnsafePointer[Float32, mut=True]"),  # an origin form not known
        ("pass", "var k = ctx.compile_function[copy_kernel]()\n    ctx.launch(k)"),
    ],
)
def test_a_form_the_migration_does_not_know_is_not_guessed_at(old: str, new: str):
    assert upgrade(OLD_MOJO.replace(old, new), {"a": "in", "b": "out"}) is None


@pytest.mark.slow
def test_the_migrated_mojo_starter_builds_without_warnings(runner, tmp_path: Path):
    import subprocess

    from generator.languages.mojo import Mojo

    imported = import_challenge(tree_with(tmp_path, {}))
    source = regenerate(runner, imported, tmp_path) / "starter" / "starter.mojo"
    command, env = Mojo().build_command(source, tmp_path / "starter.so", "sm_90")
    done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "warning" not in (done.stdout + done.stderr).lower(), done.stdout + done.stderr
