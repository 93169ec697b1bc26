"""On a GPU: every starter runs and fails, every naive 142 solution passes, timing works.

Languages whose toolchain is missing on the machine (no mojo, no CuTe DSL) are skipped here; the
GPU run from a prebuilt bundle (benchmarks/gpu_judge.py) covers them.
"""

from __future__ import annotations

import importlib.util
import os

import pytest
import torch

from generator.judge.runner import Job, judge
from generator.toolchain.tools import tool_version
from tests.judge.common import CHALLENGE_142, KEY_142, ROOT, SCALED_ADD, run_files

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.slow,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU"),
]
LANGUAGES = {
    "cuda": ".cu",
    "cute": ".cute.py",
    "jax": ".jax.py",
    "mojo": ".mojo",
    "pytorch": ".pytorch.py",
    "triton": ".triton.py",
}
NAIVE = ROOT / "solutions" / KEY_142 / "naive"


def toolchain_missing(language: str) -> bool:
    if language == "mojo":
        return tool_version("mojo") is None
    if language == "cute":
        return importlib.util.find_spec("cutlass") is None and not os.environ.get("CHGEN_CUTE_SITE")
    return False


@pytest.fixture(scope="module")
def rows(judge_cache):
    files = {}
    for language, suffix in LANGUAGES.items():
        if not toolchain_missing(language):
            files[CHALLENGE_142 / "starter" / f"starter{suffix}"] = "not_pass"
            files[NAIVE / f"solution{suffix}"] = "pass"
    return run_files(files, judge_cache, device="cuda", jobs=4)


@pytest.mark.parametrize("language", sorted(LANGUAGES))
def test_starter_builds_runs_and_does_not_pass(rows, language):
    if toolchain_missing(language):
        pytest.skip(f"no {language} toolchain here")
    row = rows[f"starter{LANGUAGES[language]}"]
    assert row["verdict"] == "wrong_answer", row["message"] + row["detail"]


@pytest.mark.parametrize("language", sorted(LANGUAGES))
def test_naive_solution_passes(rows, language):
    if toolchain_missing(language):
        pytest.skip(f"no {language} toolchain here")
    row = rows[f"solution{LANGUAGES[language]}"]
    assert row["verdict"] == "pass", row["message"] + row["detail"]
    assert row["cases"] == 16 and row["skipped"] == 0


def test_size_t_scalars_reach_a_cuda_solution(judge_cache):
    source = SCALED_ADD / "solutions" / "solution.cu"
    result = judge(Job(SCALED_ADD, source, "cuda", device="cuda"), judge_cache)
    assert result["verdict"] == "pass", result["message"] + result["detail"]


def test_perf_times_the_performance_case_with_cuda_events(judge_cache):
    job = Job(CHALLENGE_142, NAIVE / "solution.pytorch.py", "pytorch", device="cuda", perf=True)
    job.min_bytes = 3 * 16384 * 4096 * 4
    result = judge(job, judge_cache)
    assert result["verdict"] == "pass", result["message"] + result["detail"]
    perf = result["perf"]
    assert perf["clock"] == "cuda_events" and perf["min_bytes_from"] == "spec"
    assert 0 < perf["pct_of_copy"] < 110 and perf["copy_gbps"] > 100
