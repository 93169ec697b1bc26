"""The pieces that keep a solution away from the judge: signed cache entries, the output tail,
process-tree killing, the sandbox's view of the file system."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import subprocess
import sys
import time

import pytest
import torch

from generator.isolation.probe import Mode, probe
from generator.isolation.process import OutputTail, descendants, kill_tree
from generator.isolation.solution import python_paths, solution_argv, solution_env
from generator.judge.cache import Cache
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
    argv = solution_argv(paths, {}, "cpu")
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
    argv = solution_argv(python_paths(), {}, "cpu") + ["--", sys.executable, "-c", check]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "False", done.stderr
    assert isinstance(mode, Mode)


def _scaled_add_timed(fixture: str, judge_cache) -> dict:
    from generator.judge.runner import Job, judge
    from tests.judge.common import FIXTURES, SCALED_ADD

    options = {"budget_s": 0.3, "flush_bytes": 1 << 20, "copy_bytes": 0, "warmup_s": 0.0}
    job = Job(SCALED_ADD, FIXTURES / fixture, "pytorch", perf=True)
    job.perf_options = options
    result = judge(job, judge_cache)
    assert result["verdict"] == "pass", result["message"]
    return result["perf"]


def test_a_patched_harness_module_changes_nothing_the_process_times_with(judge_cache):
    """The solution replaces `timing.timed_call` in its own process (scaled add of 2**20 floats,
    about a millisecond on the CPU): the clock was made before the load, so what the process
    reports is its own time, not the forged microsecond."""
    perf = _scaled_add_timed("forge_timing.pytorch.py", judge_cache)
    reported = re.search(r"process reported ([0-9.]+) ms", perf.get("note") or "")
    assert perf["median_ms"] > 0.01
    assert reported is None or float(reported.group(1)) > 0.01


def test_timings_forged_in_the_solutions_process_are_replaced(judge_cache):
    """The solution reaches the clock object itself (gc) and makes it report a microsecond for
    calls of some milliseconds: the judge's own clock overrules the reported figure."""
    perf = _scaled_add_timed("forge_timing_clock.pytorch.py", judge_cache)
    assert perf["median_ms"] > 0.01
    assert "the judge's figure is used" in perf["note"]
    assert "process reported 0.0010 ms" in perf["note"]


# ------------------------------------------------------------------------ GPU solutions sandboxed


def _pairs(argv):
    return list(zip(argv, argv[1:], argv[2:]))


def test_the_gpu_sandbox_binds_the_device_nodes_and_what_cuda_reads(monkeypatch):
    import generator.isolation.bwrap as box

    nodes = ["/dev/nvidia-uvm", "/dev/nvidia0", "/dev/nvidiactl"]
    monkeypatch.setattr(box.glob, "glob", lambda pattern: nodes if "nvidia" in pattern else [])
    gpu = solution_argv(python_paths(), {}, "cuda:0")
    for node in nodes:
        assert ("--dev-bind", node, node) in _pairs(gpu)
    for path in box.GPU_READABLE:
        assert ("--ro-bind-try", path, path) in _pairs(gpu)
    assert "--unshare-pid" in gpu and "--unshare-net" in gpu and "--unshare-ipc" in gpu
    assert str(CHALLENGE_142) not in gpu
    cpu = solution_argv(python_paths(), {}, "cpu")
    assert "--dev-bind" not in cpu and ("--ro-bind-try", "/sys", "/sys") not in _pairs(cpu)
    # the CPU's view is the GPU's without the device parts
    device_parts = [("--dev-bind", n, n) for n in nodes]
    device_parts += [("--ro-bind-try", p, p) for p in box.GPU_READABLE]
    rest = list(gpu)
    for part in device_parts:
        at = _pairs(rest).index(part)
        del rest[at : at + 3]
    assert rest == cpu


def test_the_gpu_probe_opens_the_handle_in_the_solutions_own_sandbox(monkeypatch):
    import generator.isolation.bwrap as box
    from generator.isolation import gpu_probe

    monkeypatch.setattr(box.glob, "glob", lambda pattern: ["/dev/nvidia0"])
    argv = gpu_probe.child_argv("cuda:1", b"\x01" * 64, 65534)
    split = argv.index("--")
    assert argv[:split] == solution_argv(sandbox_binds(), {}, "cuda:1")
    assert argv[split + 1 :] == [
        sys.executable, "-m", "generator.isolation.gpu_probe", "open", "cuda:1", "01" * 64, "65534"
    ]  # fmt: skip
    assert gpu_probe.ordinal_of("cuda:1") == 1 and gpu_probe.ordinal_of("cuda") == 0


def sandbox_binds():
    from generator.isolation.solution import solution_binds

    return solution_binds()


def test_the_gpu_probes_answer_is_read_from_its_last_json_line():
    from generator.isolation.gpu_probe import read_verdict

    assert read_verdict(0, 'noise\n{"ok": true}\n', b"") is None
    failed = read_verdict(0, '{"ok": false, "reason": "CUDA IPC in the sandbox failed: 1"}', b"")
    assert failed == "CUDA IPC in the sandbox failed: 1"
    assert read_verdict(-11, "", b"x\nSegmentation fault\n") == (
        "the GPU sandbox probe exited with status -11: Segmentation fault"
    )


def test_a_failed_gpu_probe_leaves_gpu_solutions_unsandboxed_with_its_reason(monkeypatch, capsys):
    import generator.isolation.gpu_probe as gpu_probe
    import generator.isolation.probe as probing
    import generator.judge.runner as runner
    from generator.judge.runner import Job

    calls = []

    def failing(device, uid):
        calls.append(device)
        return "CUDA IPC in the sandbox failed: RuntimeError: CUDA driver error 1"

    monkeypatch.setattr(probing, "_MODES", {})
    monkeypatch.setattr(probing.bwrap, "bwrap_missing", lambda: None)
    monkeypatch.setattr(gpu_probe, "ipc_failure", failing)
    monkeypatch.setattr(runner, "_SAID_UNSANDBOXED", False)
    job = Job(CHALLENGE_142, CHALLENGE_142 / "starter" / "starter.pytorch.py", "pytorch")
    for device in ("cuda", "cuda:0"):
        mode = runner.sandbox_mode(dataclasses.replace(job, device=device))
        assert not mode.sandboxed and mode.uid is None  # beside the worker, as its user
        assert "CUDA driver error 1" in mode.describe()
    assert calls == ["cuda"]  # probed once per process
    said = capsys.readouterr().err
    assert said.count("unsandboxed (CUDA IPC in the sandbox failed") == 1, said
    # a probe that works sandboxes GPU solutions as the solution's user; the CPU is untouched
    monkeypatch.setattr(probing, "_MODES", {"cpu": Mode("bwrap", 65534)})
    monkeypatch.setattr(gpu_probe, "ipc_failure", lambda device, uid: None)
    assert probe(device="cuda").sandboxed and probe(device="cpu") == Mode("bwrap", 65534)
    assert probe(use_sandbox=False, device="cuda").uid is None


def test_without_bubblewrap_the_gpu_is_not_probed(monkeypatch):
    import generator.isolation.gpu_probe as gpu_probe
    import generator.isolation.probe as probing

    monkeypatch.setattr(probing, "_MODES", {})
    monkeypatch.setattr(probing.bwrap, "bwrap_missing", lambda: "bubblewrap is not here")
    monkeypatch.setattr(gpu_probe, "ipc_failure", lambda device, uid: pytest.fail("probed"))
    assert probe(device="cuda").describe() == "unsandboxed (bubblewrap is not here), as this user"


def _judge_on_the_gpu(name, judge_cache):
    from generator.judge.runner import Job, judge
    from tests.judge.common import HOSTILE

    mode = probe(device="cuda")
    if not mode.sandboxed:
        pytest.skip(f"no GPU sandbox here: {mode.describe()}")
    result = judge(Job(CHALLENGE_142, HOSTILE / name, "pytorch", device="cuda"), judge_cache)
    assert result["env"]["sandbox"] == mode.describe()
    return result


@pytest.mark.gpu
@pytest.mark.slow
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_on_the_gpu_the_probe_opens_a_judge_exported_ipc_handle_in_the_sandbox():
    from generator.isolation.bwrap import bwrap_missing
    from generator.isolation.gpu_probe import ipc_failure
    from generator.isolation.limits import solution_uid

    if bwrap_missing():
        pytest.skip(bwrap_missing())
    assert ipc_failure("cuda", solution_uid()) is None


@pytest.mark.gpu
@pytest.mark.slow
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
@pytest.mark.parametrize("name", ["read_challenge.pytorch.py", "read_solutions.pytorch.py"])
def test_on_the_gpu_the_sandbox_hides_the_challenge_and_the_solutions(name, judge_cache):
    result = _judge_on_the_gpu(name, judge_cache)
    assert result["verdict"] == "wrong_answer", result["message"]


@pytest.mark.gpu
@pytest.mark.slow
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_on_the_gpu_a_sandboxed_solution_still_passes(judge_cache):
    from generator.judge.runner import Job, judge

    mode = probe(device="cuda")
    if not mode.sandboxed:
        pytest.skip(f"no GPU sandbox here: {mode.describe()}")
    naive = ROOT / "solutions" / "142_rms_norm_backward" / "naive" / "solution.pytorch.py"
    result = judge(Job(CHALLENGE_142, naive, "pytorch", device="cuda"), judge_cache)
    assert result["verdict"] == "pass", result["message"]
    assert result["env"]["sandbox"].startswith("bubblewrap sandbox")
