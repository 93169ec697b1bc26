"""Warm workers (generator/judge/pool.py): the same verdicts as one worker per job, from fewer
workers; a worker whose job went wrong in the worker itself is never given another."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.judge.plan import Plan, PlanChallenge, jobs_from_catalogue
from generator.judge.pool import reusable, serving
from generator.judge.runner import Job, judge
from generator.judge.suite import SuiteOptions, run_plan
from tests.judge.common import CHALLENGE_142, HOSTILE, KEY_142

#: entries that end the solution's process, or the case, in every way the worker survives
ENTRIES = (
    "segfault.pytorch.py",
    "os_exit.pytorch.py",
    "infinite_loop.pytorch.py",
    "write_past_output.pytorch.py",
    "orphan_setsid.pytorch.py",
)


@pytest.fixture(scope="module")
def warm_rows(judge_cache, tmp_path_factory):
    """The entries, then a correct solution, on one warm worker (a fresh cache: nothing cached)."""
    from generator.judge.cache import Cache

    cache = Cache(tmp_path_factory.mktemp("pool-cache"))
    jobs = [j for j in jobs_from_catalogue(HOSTILE / "catalogue.yaml", "cpu")
            if Path(j.source).name in ENTRIES]  # fmt: skip
    plan = Plan({KEY_142: PlanChallenge(KEY_142, str(CHALLENGE_142))}, jobs)
    options = SuiteOptions(device="cpu", jobs=1, timeout=60.0, warm=True)
    rows = run_plan(plan, options, cache)
    return {Path(row["source"]).name: row for row in rows}, cache


@pytest.mark.parametrize("name", ENTRIES)
def test_each_entry_gets_its_verdict_on_a_warm_worker(warm_rows, name):
    row = warm_rows[0][name]
    assert row["ok"], f"{name}: expected {row['expect']}, got {row['verdict']}: {row['message']}"


def test_one_worker_runs_job_after_job(warm_rows):
    rows, cache = warm_rows
    solution = Path("solutions") / KEY_142 / "naive" / "solution.pytorch.py"
    source = Path(__file__).resolve().parents[2] / solution
    with serving() as pool:
        first = judge(Job(CHALLENGE_142, source, "pytorch", seed=1), cache)
        after = judge(Job(CHALLENGE_142, HOSTILE / "segfault.pytorch.py", "pytorch"), cache)
        again = judge(Job(CHALLENGE_142, source, "pytorch", seed=2), cache)
    assert (first["verdict"], after["verdict"], again["verdict"]) == ("pass", "crash", "pass")
    assert pool.started == 1  # the solution's crash left the worker fit for the next job
    assert not pool.idle  # and every idle worker ended with the block


def test_a_judge_error_or_a_gpu_error_retires_the_worker():
    assert reusable({"done": True, "verdict": "wrong_answer", "message": "x: 4 differ"})
    assert not reusable({"done": True, "verdict": "judge_error", "message": "challenge: ..."})
    assert not reusable({"done": True, "verdict": "runtime_error", "message": "GPU error: ..."})
    assert not reusable({"phase": "case"})  # it never finished
