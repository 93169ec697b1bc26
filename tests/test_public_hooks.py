"""Adopting chgen in a tree of the public layout: every file it rewrites passes that repository's
own pre-commit hooks (tests/public_hooks.py: black, isort, flake8 with flake8-bugbear,
clang-format, mojo format, trailing whitespace, end of file), at their pins.

The tree is our own public-style fixture (tests/importer/fixtures/public_style), adopted as a user
does it: `chgen import . --out specs`, then `chgen generate --out . --force`.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from generator.cli import app
from tests import public_hooks

FIXTURES = Path(__file__).parent / "importer" / "fixtures" / "public_style"

pytestmark = pytest.mark.skipif(
    bool(public_hooks.missing_tools()),
    reason=f"the hooks' tools at their pins: {', '.join(public_hooks.missing_tools())}",
)


def test_each_hook_fails_what_it_would_change(tmp_path: Path):
    public_hooks.write_public_settings(tmp_path)
    files = {
        "a.py": "import os\nimport ctypes\n\n\ndef f(x=[]):\n    return x\n",  # isort, B006
        "b.py": "x = {'a':1}\n",  # black
        "c.cu": "int  main() { return 0; }\n",  # clang-format
        "d.mojo": "def f( x: Int ):\n    pass\n",  # mojo format
        "e.py": "x = 1  \n\n",  # trailing whitespace, end of file (and flake8, black)
        "clean.py": "import ctypes\n\nX = ctypes.c_int\n",
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    failures = public_hooks.run_hooks(tmp_path, [tmp_path / n for n in files])
    found = {(f.hook, f.path) for f in failures}
    assert {("isort", "a.py"), ("black", "b.py"), ("clang-format", "c.cu")} <= found
    assert {("mojo-format", "d.mojo"), ("trailing-whitespace", "e.py")} <= found
    assert ("end-of-file-fixer", "e.py") in found
    assert any(f.hook == "flake8" and f.path == "a.py" and " B006 " in f.message for f in failures)
    assert not any(f.path == "clean.py" for f in failures)
    # the hooks only look: nothing was rewritten
    assert all((tmp_path / n).read_text() == text for n, text in files.items())


@pytest.mark.slow
def test_every_file_the_adoption_rewrites_passes_the_hooks(runner, tmp_path: Path):
    tree = tmp_path / "tree"
    shutil.copytree(FIXTURES / "challenges", tree / "challenges")
    # a CUDA starter whose parameter comment a rule flags (S007): the adoption rewrites it in
    # chgen's form, so clang-format sees a rewritten file too
    cuda = tree / "challenges" / "easy" / "201_scale_vector" / "starter" / "starter.cu"
    comment = "// x, y are device pointers (i.e. pointers to memory on the GPU)"
    assert comment in cuda.read_text()
    cuda.write_text(cuda.read_text().replace(comment, "// x and y live on the GPU"))
    public_hooks.write_public_settings(tree)
    start = {p: p.read_bytes() for p in (tree / "challenges").rglob("*") if p.is_file()}
    specs = tmp_path / "specs"
    imported = runner.invoke(app, ["import", str(tree), "--out", str(specs)])
    assert imported.exit_code == 0, imported.output
    generated = runner.invoke(
        app, ["generate", "--specs", str(specs), "--out", str(tree), "--force"]
    )
    assert generated.exit_code == 0, generated.output
    rewritten = []
    for path in sorted((tree / "challenges").rglob("*")):
        if not path.is_file():
            continue
        if start.get(path) != path.read_bytes():
            rewritten.append(path)
    kinds = {p.suffix for p in rewritten}
    assert {".py", ".mojo", ".cu"} <= kinds, kinds  # the adoption did rewrite files
    failures = public_hooks.run_hooks(tree, rewritten)
    assert failures == [], "\n".join(f"{f.hook} {f.path}: {f.message}" for f in failures)
