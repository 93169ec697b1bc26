"""The bad-spec catalogue: hostile spec code and hostile YAML each end in one positioned line and a
non-zero exit, and the generated tree never disappears, never lets writes leave it."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from generator import tree
from generator.cli import app
from generator.spec import SpecErrors, load_spec_text
from tests.conftest import ROOT

SPEC_143 = ROOT / "specs" / "143_row_inverse_rms.yaml"
LINE_RE = re.compile(r"^error [^:\n]+:\d+:\d+: .+")


def with_reference(text: str, body: str) -> str:
    """The 143 spec with its reference body replaced by `body`."""
    return re.sub(
        r"^reference: \|\n(?:  .*\n)+", "reference: |\n  " + body + "\n", text, count=1, flags=re.M
    )


def reference_line(text: str) -> int:
    return text.splitlines().index("reference: |") + 1


# --- spec code is untrusted: each attack is its own spec, all checked in one run --------------

SPEC_CODE_ATTACKS = {
    "system_exit": (
        "raise SystemExit(0)",
        "the reference failed on the example inputs: SystemExit",
    ),
    "keyboard": ("raise KeyboardInterrupt", "failed on the example inputs: KeyboardInterrupt"),
    "os_exit": ("import os; os._exit(0)", "ended the checking process (exit status 0)"),
    "hang": ("while True: pass", "did not finish within 3 s and was stopped"),
    "crash": ("import ctypes; ctypes.string_at(0)", "killed the checking process (SIGSEGV)"),
    "memory": ("x = bytearray(1 << 40)", "MemoryError"),
    # a pickle, not a message, on every pipe it may write to (the protocol's among them)
    "forged_message": (
        "import fcntl, os; fds = [int(n) for n in os.listdir('/proc/self/fd') if int(n) > 2 and "
        "os.path.lexists(f'/proc/self/fd/{n}') and "
        "os.readlink(f'/proc/self/fd/{n}').startswith('pipe:')]; "
        "[os.write(fd, bytes([128, 4, 149]) + b' (pickled)' + bytes([10])) for fd in fds if "
        "fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE == os.O_WRONLY]",
        "sent what chgen refuses (not a JSON message) and was stopped",
    ),
}


def test_spec_code_attacks_are_positioned_errors(workdir, runner, monkeypatch):
    monkeypatch.setenv("CHGEN_REFERENCE_TIMEOUT", "3")
    base = SPEC_143.read_text()
    expected = {}
    for number, (slug, (body, message)) in enumerate(SPEC_CODE_ATTACKS.items(), start=500):
        text = with_reference(base, body).replace("id: 143", f"id: {number}", 1)
        text = text.replace("slug: row_inverse_rms", f"slug: {slug}", 1)
        name = f"specs/{number}_{slug}.yaml"
        (workdir / name).write_text(text)
        expected[name] = (reference_line(text), message)
    before = (workdir / "generated" / ".chgen" / "manifest.json").read_text()
    for args in (["generate"], ["generate", "--check"]):
        result = runner.invoke(app, args + sorted(expected))
        assert result.exit_code == 1, result.output
        lines = result.output.strip().splitlines()
        assert lines[-1] == f"{len(expected)} error(s); nothing was written"
        for name, (line, message) in expected.items():
            mine = [entry for entry in lines if f"{name}:{line}:" in entry]
            assert len(mine) == 1 and message in mine[0], (name, result.output)
            assert LINE_RE.match(mine[0])
        assert "Traceback" not in result.output
    assert (workdir / "generated" / ".chgen" / "manifest.json").read_text() == before


def test_chgen_check_runs_spec_code_in_the_child_too(workdir, runner, monkeypatch):
    monkeypatch.setenv("CHGEN_REFERENCE_TIMEOUT", "3")
    text = with_reference(SPEC_143.read_text(), "raise SystemExit(0)")
    copy = workdir / "specs" / SPEC_143.name
    copy.write_text(text)
    result = runner.invoke(app, ["check", f"specs/{SPEC_143.name}"])
    assert result.exit_code == 1
    assert f"specs/{SPEC_143.name}:{reference_line(text)}:" in result.output
    assert "SystemExit" in result.output


# --- YAML that would exhaust the loader, or that PyYAML reads unexpectedly --------------------


def billion_laughs() -> str:
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for level in range(1, 9):
        name, previous = chr(97 + level), chr(96 + level)
        lines.append(f"{name}: &{name} [" + ",".join([f"*{previous}"] * 9) + "]")
    return "\n".join(lines) + "\n"


YAML_ATTACKS = [
    (billion_laughs(), "1:", "YAML aliases (*name) expand to more than 10,000 values"),
    ("a: " + "[" * 5000 + "]" * 5000 + "\n", "1:103:", "YAML nesting is deeper than 100 levels"),
    ("a: &a [1, *a]\n", "1:", "YAML nesting is deeper than 100 levels"),
    ("base: &b {x: 1}\nother:\n  <<: *b\n", "3:3:", "YAML merge keys (<<) are not supported"),
]


@pytest.mark.parametrize("text, where, message", YAML_ATTACKS)
def test_hostile_yaml_is_refused_with_a_position(text, where, message):
    with pytest.raises(SpecErrors) as info:
        load_spec_text(text, "spec.yaml")
    rendered = [e.render() for e in info.value.errors]
    assert len(rendered) == 1 and rendered[0].startswith(f"spec.yaml:{where}"), rendered
    assert message in rendered[0]


def test_a_boolean_is_not_an_integer():
    text = SPEC_143.read_text()
    changed = text.replace("scalars: {T: 3, D: 4,", "scalars: {T: true, D: 4,", 1)
    assert changed != text
    with pytest.raises(SpecErrors) as info:
        load_spec_text(changed, "spec.yaml")
    line = next(i for i, t in enumerate(changed.splitlines(), 1) if "T: true" in t)
    assert any(e.position.line == line for e in info.value.errors), info.value
    assert "T is true; it must be a number" in str(info.value)


def test_exponents_without_a_dot_are_numbers():
    text = SPEC_143.read_text()
    loaded = load_spec_text(re.sub(r"^atol: .*$", "atol: 1e-5", text, flags=re.M), "spec.yaml")
    assert loaded.spec.atol == 1e-5


def test_user_text_is_printed_literally(workdir, runner):
    """A key holding rich markup and an error at line 100 (`:100:` is an emoji code) print as is."""
    text = SPEC_143.read_text()
    lines = text.splitlines()
    lines[1:1] = ['"bad[/]key": 1'] + ["# padding"] * 97 + ['"second[bold]key": 2']  # 2, 100
    (workdir / "specs" / SPEC_143.name).write_text("\n".join(lines) + "\n")
    result = runner.invoke(app, ["generate", "--check"])
    assert result.exit_code == 1
    assert f"specs/{SPEC_143.name}:2:14: unknown field 'bad[/]key'" in result.output
    assert f"specs/{SPEC_143.name}:100:20: unknown field 'second[bold]key'" in result.output


# --- the tree: never missing, never written through a link, one writer at a time --------------


def output(text: str) -> tree.Output:
    return tree.Output(
        {"a/one.txt": text, "a/b/two.txt": text * 2}, {"a/one.txt": "x", "a/b/two.txt": "x"}
    )


def contents(root: Path) -> dict:
    return {str(p.relative_to(root)): p.read_text() for p in sorted(root.rglob("*")) if p.is_file()}


def test_a_symbolic_link_in_the_tree_is_refused(tmp_path):
    root = tmp_path / "generated"
    tree.write(root, output("old\n"))
    outside = tmp_path / "outside.txt"
    outside.write_text("keep\n")
    (root / "a" / "one.txt").unlink()
    (root / "a" / "one.txt").symlink_to(outside)
    with pytest.raises(tree.UnsafeTree, match="is a symbolic link; chgen never writes through"):
        tree.write(root, output("new\n"), force=True)
    assert outside.read_text() == "keep\n"
    linked_dir = tmp_path / "elsewhere"
    linked_dir.mkdir()
    (root / "a" / "one.txt").unlink()
    (root / "a" / "b" / "two.txt").unlink()
    (root / "a" / "b").rmdir()
    (root / "a" / "b").symlink_to(linked_dir)
    with pytest.raises(tree.UnsafeTree):
        tree.write(root, output("new\n"), force=True)
    assert list(linked_dir.iterdir()) == []


def test_a_failed_swap_leaves_the_old_tree_and_no_copies(tmp_path, monkeypatch):
    root = tmp_path / "generated"
    tree.write(root, output("old\n"))
    before = contents(root)

    def refuse(first, second):
        raise PermissionError(13, "Permission denied", str(second))

    monkeypatch.setattr(tree, "exchange", refuse)
    monkeypatch.setattr(tree, "_can_exchange", lambda root: True)
    with pytest.raises(PermissionError):
        tree.write(root, output("new\n"))
    assert contents(root) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["generated"]


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_a_read_only_tree_is_an_error_and_nothing_is_written(tmp_path):
    root = tmp_path / "generated"
    tree.write(root, output("old\n"))
    for directory in [root, root / "a", root / "a" / "b"]:
        directory.chmod(0o555)
    try:
        with pytest.raises(tree.UnsafeTree, match="is not writable"):
            tree.write(root, output("new\n"))
        assert contents(root)["a/one.txt"] == "old\n"
        assert sorted(p.name for p in tmp_path.iterdir()) == ["generated"]
    finally:
        for directory in [root, root / "a", root / "a" / "b"]:
            directory.chmod(0o755)


def test_concurrent_writers_are_serialised(tmp_path):
    root = tmp_path / "generated"
    tree.write(root, output("old\n"))
    finished = threading.Event()

    def second_writer():
        tree.write(root, output("new\n"))
        finished.set()

    with tree.locked(root.resolve()):
        writer = threading.Thread(target=second_writer)
        writer.start()
        assert not finished.wait(1.0)  # it waits for the lock, however slow the machine is
        assert contents(root)["a/one.txt"] == "old\n"
    writer.join(timeout=120)
    assert finished.is_set() and contents(root)["a/one.txt"] == "new\n"


KILLED_WRITER = """
import os, signal, sys
from pathlib import Path
from generator import tree
when = sys.argv[2]
real = tree._swap
def swap(target, staged, scratch):
    if when == "before":
        os.kill(os.getpid(), signal.SIGKILL)
    real(target, staged, scratch)
    os.kill(os.getpid(), signal.SIGKILL)
tree._swap = swap
tree.write(Path(sys.argv[1]), tree.Output(
    {"a/one.txt": "new\\n", "a/b/two.txt": "new\\nnew\\n", "c/three.txt": "added\\n"},
    {"a/one.txt": "x", "a/b/two.txt": "x", "c/three.txt": "x"},
))
"""


@pytest.mark.parametrize("when", ["before", "after"])
def test_a_kill_during_the_swap_leaves_every_directory_whole(tmp_path, when):
    """Killed before its first exchange, a run changed nothing; killed after it, one directory is
    new and whole, the other old and whole, and the next run finishes the job without taking
    the first run's files for hand edits."""
    root = tmp_path / "generated"
    tree.write(root, output("old\n"))
    if not tree._can_exchange(root):
        pytest.skip("this file system has no atomic exchange (files are replaced one by one)")
    old = contents(root)
    done = subprocess.run(
        [sys.executable, "-c", KILLED_WRITER, str(root), when], cwd=ROOT, timeout=300
    )
    assert done.returncode == -signal.SIGKILL
    now = {k: v for k, v in contents(root).items() if not k.startswith(tree.STATE_DIR)}
    if when == "before":
        assert now == {k: v for k, v in old.items() if not k.startswith(tree.STATE_DIR)}
    else:
        assert now == {"a/one.txt": "new\n", "a/b/two.txt": "new\nnew\n"}  # "a" swapped, "c" not
    tree.write(root, output("old\n"))  # no --force: the files the kill left are chgen's own
    assert contents(root) == old
    assert sorted(p.name for p in tmp_path.iterdir()) == ["generated"]
    assert sorted(p.name for p in (root / tree.STATE_DIR).iterdir()) == ["manifest.json"]


def test_only_the_rendered_directories_are_exchanged(tmp_path):
    """A repository's root, its other folders and files chgen does not own stay as they are:
    the same inodes, the same bytes (a shell standing in the root keeps its directory)."""
    root = tmp_path / "repo"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "keep.md").write_text("mine\n")
    (root / "a").mkdir()
    (root / "a" / "notes.txt").write_text("not chgen's\n")
    inode = root.stat().st_ino
    tree.write(root, output("old\n"))
    tree.write(root, output("new\n"))
    assert root.stat().st_ino == inode
    files = contents(root)
    assert files["docs/keep.md"] == "mine\n" and files["a/notes.txt"] == "not chgen's\n"
    assert files["a/one.txt"] == "new\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["repo"]
    assert sorted(p.name for p in (root / ".chgen").iterdir()) == ["manifest.json"]


def test_a_manifest_at_the_old_place_is_moved_into_the_state_folder(tmp_path):
    root = tmp_path / "generated"
    tree.write(root, output("old\n"))
    manifest = (root / tree.MANIFEST).read_text()
    (root / tree.MANIFEST).unlink()
    (root / tree.STATE_DIR).rmdir()
    (root / tree.LEGACY_MANIFEST).write_text(manifest)
    (root / "a" / "one.txt").write_text("new\n")  # as another writer left it: a hand edit
    with pytest.raises(tree.TreeConflict):
        tree.write(root, output("old\n"))  # the old manifest is still read
    (root / "a" / "one.txt").write_text("old\n")
    changes = tree.write(root, output("old\n"))
    assert [(c.path, c.kind) for c in changes] == [
        (tree.LEGACY_MANIFEST, "removed"),
        (tree.MANIFEST, "added"),
    ]
    assert not (root / tree.LEGACY_MANIFEST).exists()
    assert (root / tree.MANIFEST).read_text() == manifest


# ------------------------------------------------------------- chgen check --deep runs sandboxed


def _tree_with_challenge_py(tmp_path: Path, prefix: str) -> Path:
    """A copy of challenge 142's tree whose challenge.py starts with `prefix`."""
    import shutil

    source = ROOT / "generated" / "challenges"
    target = tmp_path / "challenges"
    shutil.copytree(source / "core", target / "core")
    challenge = target / "medium" / "142_rms_norm_backward"
    shutil.copytree(source / "medium" / "142_rms_norm_backward", challenge)
    path = challenge / "challenge.py"
    path.write_text(prefix + path.read_text())
    return challenge


@pytest.mark.slow
def test_deep_check_of_a_challenge_py_that_exits_is_a_finding(tmp_path):
    from generator.checks.report import Options
    from generator.checks.runner import run

    challenge = _tree_with_challenge_py(tmp_path, "import os\nos._exit(3)\n")
    result = run([challenge], Options(deep=True, select=("D006",)))
    messages = [f.render() for f in result.findings if f.code == "D006"]
    assert len(messages) == 1 and "exit status 3" in messages[0], messages
    assert messages[0].startswith(str(challenge.name)) or "challenge.py:1:1" in messages[0]


@pytest.mark.slow
def test_deep_check_of_a_challenge_py_cannot_write_beside_it(tmp_path):
    from generator.checks.report import Options
    from generator.checks.runner import run
    from generator.isolation.bwrap import bwrap_works

    if not bwrap_works():
        pytest.skip("bubblewrap does not work here")
    planted = tmp_path / "planted.txt"
    prefix = f"try:\n    open({str(planted)!r}, 'w').write('x')\nexcept OSError:\n    pass\n"
    run([_tree_with_challenge_py(tmp_path, prefix)], Options(deep=True, select=("D006",)))
    assert not planted.exists()
