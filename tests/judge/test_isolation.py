"""The pieces that keep a solution away from the judge: signed cache entries, the output tail,
process-tree killing, the sandbox's view of the file system."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

from generator.judge.cache import Cache
from generator.judge.process import OutputTail, descendants, kill_tree
from generator.judge.sandbox import Mode, bwrap_argv, probe, python_paths, solution_env
from tests.judge.common import CHALLENGE_142, ROOT


def test_a_run_entry_written_by_someone_else_is_ignored(tmp_path):
    cache = Cache(tmp_path)
    cache.write_run("k" * 64, {"verdict": "wrong_answer"})
    assert cache.read_run("k" * 64) == {"verdict": "wrong_answer"}
    path = cache.run_path("k" * 64)
    path.write_text(json.dumps({"verdict": "pass"}))  # what a solution could write
    assert cache.read_run("k" * 64) is None
    forged = {"result": json.dumps({"verdict": "pass"}), "mac": "0" * 64}
    path.write_text(json.dumps(forged))
    assert cache.read_run("k" * 64) is None
    assert (tmp_path / "secret").stat().st_mode & 0o077 == 0


def test_the_output_tail_keeps_the_end_and_counts_the_rest():
    read, write = os.pipe()
    tail = OutputTail(read, keep=1000)
    for index in range(300):
        os.write(write, f"line {index:05d}\n".encode())
    os.close(write)
    tail.thread.join(timeout=30)
    text = tail.text()
    assert tail.total == 300 * 11
    assert text.endswith("line 00299\n")
    assert "earlier byte(s) of output not kept" in text
    assert len(text.encode()) < 1100


def test_kill_tree_reaches_descendants_that_left_the_session():
    code = (
        "import subprocess, sys, time;"
        "subprocess.Popen([sys.executable, '-c', 'import os, time; os.setsid(); time.sleep(120)'],"
        " start_new_session=True); time.sleep(120)"
    )
    root = subprocess.Popen([sys.executable, "-c", code])
    deadline = time.time() + 60
    while len(descendants(root.pid)) < 1 and time.time() < deadline:
        time.sleep(0.05)
    found = descendants(root.pid)
    assert found
    kill_tree(root.pid)
    root.wait(timeout=30)
    time.sleep(0.2)
    alive = [pid for pid in found if os.path.exists(f"/proc/{pid}") and _not_zombie(pid)]
    assert not alive


def _not_zombie(pid: int) -> bool:
    try:
        stat = open(f"/proc/{pid}/stat").read()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2] != "Z"


def test_the_sandbox_binds_neither_the_checkout_nor_the_home():
    paths = python_paths()
    for path in paths:
        assert not ROOT.is_relative_to(path), path  # no folder above or equal to the checkout
    argv = bwrap_argv(paths, {}, "cpu")
    assert str(CHALLENGE_142) not in argv
    assert "--unshare-net" in argv or "--unshare-all" in argv


def test_the_solution_inherits_no_secrets():
    env = solution_env({"GITHUB_TOKEN": "x", "PATH": "/bin", "CUDA_VISIBLE_DEVICES": ""}, "/job")
    assert "GITHUB_TOKEN" not in env
    assert env["HOME"] == "/job" and env["PATH"] == "/bin"


def test_in_the_sandbox_the_challenge_cannot_be_read():
    mode = probe()
    if not mode.sandboxed:
        import pytest

        pytest.skip(f"no sandbox here: {mode.describe()}")
    check = f"import os; print(os.path.exists({str(CHALLENGE_142 / 'challenge.py')!r}))"
    argv = bwrap_argv(python_paths(), {}, "cpu") + ["--", sys.executable, "-c", check]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "False", done.stderr
    assert isinstance(mode, Mode)


def test_timings_forged_in_the_solutions_process_are_replaced(judge_cache):
    """The solution patches the timing harness of its own process (scaled add of 2**20 floats,
    about a millisecond on the CPU): the judge's own clock overrules the reported figure."""
    from generator.judge.runner import Job, judge
    from tests.judge.common import FIXTURES, SCALED_ADD

    options = {"budget_s": 0.3, "flush_bytes": 1 << 20, "copy_bytes": 0, "warmup_s": 0.0}
    job = Job(SCALED_ADD, FIXTURES / "forge_timing.pytorch.py", "pytorch", perf=True)
    job.perf_options = options
    result = judge(job, judge_cache)
    assert result["verdict"] == "pass", result["message"]
    assert result["perf"]["median_ms"] > 0.01
    assert "the judge's figure is used" in result["perf"]["note"]
