"""The hostile catalogue: every file gets its own verdict while the run goes on.

On the CPU, Python solutions run and native ones are built only; on a GPU everything runs,
including out-of-bounds stores, illegal addresses and launches without synchronisation in CUDA,
Mojo and CuTe. Each entry runs in its own worker, in one parallel suite run per device.
"""

from __future__ import annotations

from pathlib import Path
from typing import Dict

import pytest
import torch

from generator.judge.plan import Plan, PlanChallenge, jobs_from_catalogue
from generator.judge.suite import SuiteOptions, run_plan
from tests.judge.common import CHALLENGE_142, HOSTILE, KEY_142

CATALOGUE = HOSTILE / "catalogue.yaml"


def run_catalogue(device: str, cache) -> Dict[str, dict]:
    challenges = {KEY_142: PlanChallenge(KEY_142, str(CHALLENGE_142))}
    plan = Plan(challenges, jobs_from_catalogue(CATALOGUE, device))
    rows = run_plan(plan, SuiteOptions(device=device, jobs=2, timeout=60.0), cache)
    return {Path(row["source"]).name: row for row in rows}


def entries(device: str):
    return [Path(job.source).name for job in jobs_from_catalogue(CATALOGUE, device)]


@pytest.fixture(scope="module")
def cpu_rows(judge_cache):
    return run_catalogue("cpu", judge_cache)


@pytest.mark.slow
@pytest.mark.parametrize("name", entries("cpu"))
def test_hostile_on_the_cpu(cpu_rows, name):
    row = cpu_rows[name]
    assert row["ok"], f"{name}: expected {row['expect']}, got {row['verdict']}: {row['message']}"


@pytest.mark.slow
def test_hostile_messages_say_what_happened(cpu_rows):
    assert "SIGSEGV" in cpu_rows["segfault.pytorch.py"]["message"]
    message = cpu_rows["infinite_loop.pytorch.py"]["message"]
    assert "case generate_example_test ran past its 5 s limit" in message
    assert "right after its last byte" in cpu_rows["write_past_output.pytorch.py"]["message"]
    assert "dweight" in cpu_rows["write_past_output.pytorch.py"]["message"]
    assert "input dy was modified" in cpu_rows["write_into_input.pytorch.py"]["message"]
    message = cpu_rows["os_exit.pytorch.py"]["message"]
    assert "exited with status 0 during case generate_example_test" in message
    assert "SystemExit: 3" in cpu_rows["sys_exit.pytorch.py"]["message"]
    assert "defines no function 'solve'" in cpu_rows["no_solve.pytorch.py"]["message"]
    assert "returned shape (1, 4), expected (4,)" in cpu_rows["wrong_shape.jax.py"]["message"]
    assert "returned 1 array(s); expected 2" in cpu_rows["too_few_arrays.jax.py"]["message"]
    assert "launch_the_kernel_that_does_not_exist" in cpu_rows["build_error.cu"]["message"]
    assert "cannot implicitly convert" in cpu_rows["build_error.mojo"]["message"]
    # the crash and the hang did not cost the others their verdicts
    assert cpu_rows["accumulates.pytorch.py"]["verdict"] == "wrong_answer"


@pytest.fixture(scope="module")
def gpu_rows(judge_cache):
    return run_catalogue("cuda", judge_cache)


@pytest.mark.gpu
@pytest.mark.slow
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
@pytest.mark.parametrize("name", entries("cuda"))
def test_hostile_on_the_gpu(gpu_rows, name):
    row = gpu_rows[name]
    assert row["ok"], f"{name}: expected {row['expect']}, got {row['verdict']}: {row['message']}"


@pytest.mark.slow
def test_attacks_on_the_judge_say_what_happened(cpu_rows):
    assert (
        "got 123.0" in cpu_rows["patch_le.pytorch.py"]["message"]
    )  # the outputs were never written
    assert "write outside dweight" in cpu_rows["patch_equal_then_overrun.pytorch.py"]["message"]
    assert "without a verdict" in cpu_rows["forge_result.pytorch.py"]["message"]
    assert "ran past its 5 s limit" in cpu_rows["heartbeat.pytorch.py"]["message"]
    assert "over the 2048 MiB limit" in cpu_rows["hog_memory.pytorch.py"]["message"] or (
        "can't allocate memory" in cpu_rows["hog_memory.pytorch.py"]["message"]
    )
    # the cache-poisoning attempt ran before the control in the same cache; the control still fails
    assert cpu_rows["wrong_after_poison.pytorch.py"]["verdict"] == "wrong_answer"


@pytest.mark.slow
def test_no_process_outlives_the_judge(cpu_rows):
    marker = "chgen-hostile-orphan-7f3a"
    survivors = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                continue
            if marker in cmdline and "import os, time; os.setsid()" in cmdline:
                survivors.append(entry.name)
    assert cpu_rows["orphan_setsid.pytorch.py"]["verdict"] == "pass"
    assert not survivors, f"processes left behind: {survivors}"
