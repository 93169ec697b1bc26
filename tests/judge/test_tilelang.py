"""TileLang on a machine without a GPU: starters and solutions are compile-checked for sm_90.

TileLang's CPU target ("c") does not lower the fragment reductions every solution uses, so what
the CPU proves is that every kernel compiles (nvcc, for sm_90) at the shapes it is called with;
running them needs a GPU.
"""

from __future__ import annotations

import json

import pytest

from generator.judge.runner import Job, judge
from generator.judge.signature import params_from_signature
from generator.languages import BY_KEY
from generator.loading import load_challenge_class
from tests.judge.common import CHALLENGE_142, FIXTURES, ROOT, run_files

CHALLENGE_143 = CHALLENGE_142.parent / "143_row_inverse_rms"
SOLUTIONS = [
    (CHALLENGE_142, ROOT / "solutions" / "142_rms_norm_backward" / variant)
    for variant in ("naive", "optimized")
] + [
    (CHALLENGE_143, ROOT / "solutions" / "143_row_inverse_rms" / v) for v in ("naive", "optimized")
]
TILELANG = BY_KEY["tilelang"]


def test_without_a_gpu_tilelang_is_compiled_for_the_target_not_run():
    assert TILELANG.compiles_in_worker and not TILELANG.runs_on_cpu
    env = TILELANG.worker_env("cpu", "sm_90")
    assert json.loads(env["TILELANG_DEFAULT_TARGET"]) == {"kind": "cuda", "arch": "sm_90"}
    assert TILELANG.worker_env("cuda", "sm_90") == {}  # on a GPU TileLang picks its target


@pytest.mark.slow
@pytest.mark.parametrize("challenge, folder", SOLUTIONS, ids=lambda v: getattr(v, "name", ""))
def test_solution_kernels_compile_for_sm90_at_every_case_shape(challenge, folder, monkeypatch):
    """Every case of the spec, the performance case included: each shape is its own kernel."""
    monkeypatch.setenv("TILELANG_DEFAULT_TARGET", json.dumps({"kind": "cuda", "arch": "sm_90"}))
    instance = load_challenge_class(challenge / "challenge.py")(device="cpu")
    params = params_from_signature(instance.get_solve_signature())
    solve = TILELANG.load(folder / TILELANG.solution_name, params)
    compiled = []
    original = solve.fn

    def counting(*args):
        compiled.append(args)
        return original(*args)

    solve.fn = counting
    cases = [
        instance.generate_example_test(),
        *instance.generate_functional_test(),
        instance.generate_performance_test(),
    ]
    for case in cases:
        TILELANG.compile_only(solve, params, case)
    assert len(compiled) == len(cases)


@pytest.mark.slow
def test_the_judge_compile_checks_tilelang_on_the_cpu(judge_cache):
    files = {
        CHALLENGE_142 / "starter" / "starter.tilelang.py": "not_pass",
        ROOT / "solutions" / "142_rms_norm_backward" / "optimized" / "solution.tilelang.py": "pass",
        FIXTURES / "tilelang" / "bad_kernel.tilelang.py": "build_error",
    }
    rows = run_files(files, judge_cache)
    assert rows["starter.tilelang.py"]["verdict"] == "built"
    assert rows["solution.tilelang.py"]["verdict"] == "built"
    bad = rows["bad_kernel.tilelang.py"]
    assert bad["verdict"] == "build_error" and bad["message"].startswith("TileLang: "), bad


@pytest.mark.slow
def test_143_starter_is_built_by_the_judge(judge_cache):
    job = Job(CHALLENGE_143, CHALLENGE_143 / "starter" / "starter.tilelang.py", "tilelang")
    job.target = "sm_90"
    result = judge(job, judge_cache)
    assert result["verdict"] == "built", result
