"""Timed calls that must do the work: the timing family of the hostile catalogue, the three ways
the judge changes inputs between timed calls, and baselines timed in their own calling form.

On the CPU, against small challenges. Verdicts and what the defences did are asserted, never a
time: whether a cheat gained anything is shown by a GPU run (benchmarks/gpu_judge.py), beside
the honest entry's time.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Dict

import pytest

from generator.judge.plan import Plan, PlanChallenge, jobs_from_catalogue
from generator.judge.runner import Job, judge
from generator.judge.suite import SuiteOptions, run_plan
from tests.judge.common import FIXTURES, HOSTILE, KEY_142, SCALED_ADD

CATALOGUE = HOSTILE / "catalogue.yaml"
#: 142's signature, reference and inputs with a 1024 x 1024 performance case
SMALL_142 = FIXTURES / "tree" / "challenges" / "medium" / "9142_small_rms_norm_backward"
EASY = SCALED_ADD.parent
SLOW_SETS = EASY / "9003_scaled_add_slow_sets"
FIXED_INPUTS = EASY / "9004_scaled_add_fixed_inputs"
TIMING = FIXTURES / "timing"
OPTIONS = {"budget_s": 0.3, "flush_bytes": 1 << 20, "copy_bytes": 0, "warmup_s": 0.0}


def timed_entries():
    return [j for j in jobs_from_catalogue(CATALOGUE, "cpu", timed=True) if j.perf]


def test_the_timing_family_is_timed_and_held_to_its_timed_verdict():
    untimed = {j.name: j for j in jobs_from_catalogue(CATALOGUE, "cuda")}
    timed = {j.name: j for j in jobs_from_catalogue(CATALOGUE, "cuda", timed=True)}
    assert timed["timing_replay_outputs"].expect == "wrong_answer"
    assert untimed["timing_replay_outputs"].expect == "pass"  # correct on every single call
    assert timed["timing_thread_after_return"].expect == "wrong_answer|pass"
    assert timed["timing_side_stream"].perf and not timed["segfault"].perf
    assert timed["segfault"].expect == untimed["segfault"].expect == "crash"
    assert timed["timing_replay_outputs"].untimed_expect == "pass"  # a run without --perf
    on_cpu = {j.name: j.expect for j in timed_entries()}
    assert on_cpu["timing_thread_after_return"] == "wrong_answer"
    assert "timing_persist_l2" not in on_cpu  # a GPU's cache


@pytest.fixture(scope="module")
def family(judge_cache) -> Dict[str, dict]:
    """Every CPU entry of the timing family: correctness against the small 142, then timed."""
    plan = Plan({KEY_142: PlanChallenge(KEY_142, str(SMALL_142))}, timed_entries())
    options = SuiteOptions(device="cpu", perf=True, jobs=2, timeout=60.0, perf_options=OPTIONS)
    rows = run_plan(plan, options, judge_cache)
    return {row["name"]: row for row in rows}


@pytest.mark.slow
@pytest.mark.parametrize("name", [j.name for j in timed_entries()])
def test_each_cheat_is_caught_or_gains_nothing(family, name):
    row = family[name]
    assert row["ok"], f"{name}: expected {row['expect']}, got {row['verdict']}: {row['message']}"


@pytest.mark.slow
def test_the_defences_ran_on_every_timed_call(family):
    for name, row in family.items():
        rounds = (row["perf"] or {}).get("rounds")
        assert rounds, name
        assert rounds["inputs"] == "fresh" and rounds["outputs_reset"] == rounds["calls"], name
        assert rounds["sets"] == rounds["calls"], name  # one set per call: none seen twice
        if row["verdict"] == "pass":
            assert rounds["checked"] >= 3 and rounds["calls"] > rounds["checked"], name


@pytest.mark.slow
def test_what_each_cheat_met(family):
    replay = family["timing_replay_outputs"]
    assert replay["message"].startswith("performance case: timed call 1, on inputs the judge")
    assert "dx:" in replay["message"]
    # its outputs, copied as the call returned, hold the pre-fill or an earlier call's answer
    thread = family["timing_thread_after_return"]
    assert thread["message"].startswith("performance case: timed call ")
    # the process's clock was made before the load: the thousandfold slower perf_counter is not
    # what it reads, so what it reports is of the order of the judge's own figure
    forged = family["timing_patch_perf_counter"]["perf"]
    reported = re.search(r"process reported ([0-9.]+) ms", forged.get("note") or "")
    if reported is not None:
        assert float(reported.group(1)) > 0.1 * forged["rounds"]["judge_ms"]
    for name in ("timing_honest", "timing_skip_repeated", "timing_replay_fingerprint"):
        assert family[name]["verdict"] == "pass", name


# ----------------------------------------------------------------- where the inputs come from


def _timed(challenge: Path, source: Path, **fields) -> dict:
    return Job(challenge, source, "pytorch", perf=True, functional=False, perf_options=OPTIONS,
               **fields)  # fmt: skip


def test_slow_sets_take_turns_and_a_replay_by_pointer_is_caught(judge_cache):
    honest = judge(_timed(SLOW_SETS, SCALED_ADD / "solutions" / "solution.pytorch.py"), judge_cache)
    assert honest["verdict"] == "pass", honest["message"] + honest["detail"]
    rounds = honest["perf"]["rounds"]
    assert rounds["inputs"] == "rotated" and rounds["sets"] == 2
    assert rounds["why"].startswith("making a set takes")
    replay = judge(_timed(SLOW_SETS, TIMING / "replay_by_pointer.pytorch.py"), judge_cache)
    assert replay["verdict"] == "wrong_answer", replay["message"]
    assert replay["message"].startswith("timed call 2, on inputs the judge wrote: C:")


def test_a_performance_case_that_ignores_the_seed_keeps_its_inputs(judge_cache):
    result = judge(_timed(FIXED_INPUTS, TIMING / "replay_by_pointer.pytorch.py"), judge_cache)
    assert result["verdict"] == "pass", result["message"]
    rounds = result["perf"]["rounds"]
    assert rounds["inputs"] == "fixed" and rounds["sets"] == 1
    assert rounds["why"] == "the performance case does not change with the seed"
    assert rounds["outputs_reset"] == rounds["calls"]  # the one defence left: outputs reset


# --------------------------------------------------------------------------------- baselines


def test_a_baseline_returns_its_outputs_and_prepares_off_the_clock(judge_cache):
    """Its solve returns C instead of writing it, from alpha * B that `prepare` made for the
    inputs of each call: checked on every checked call, so the preparation ran for each."""
    job = _timed(SCALED_ADD, TIMING / "returning_baseline.pytorch.py", baseline=True)
    result = judge(job, judge_cache)
    assert result["verdict"] == "pass", result["message"] + result["detail"]
    assert result["perf"]["rounds"]["checked"] >= 3


def test_only_a_baseline_may_return_its_outputs_or_prepare(judge_cache):
    returns = TIMING / "returns_output.pytorch.py"
    assert judge(_timed(SCALED_ADD, returns, baseline=True), judge_cache)["verdict"] == "pass"
    as_solution = judge(Job(SCALED_ADD, returns, "pytorch"), judge_cache)
    assert as_solution["verdict"] == "wrong_answer"  # a solution writes C, or C is not written
    prepared = judge(Job(SCALED_ADD, TIMING / "returning_baseline.pytorch.py", "pytorch"),
                     judge_cache)  # fmt: skip
    assert prepared["verdict"] == "runtime_error"  # no `prepare` is called for a solution
    wrong = judge(_timed(SCALED_ADD, TIMING / "returns_too_many.pytorch.py", baseline=True),
                  judge_cache)  # fmt: skip
    assert wrong["verdict"] == "wrong_answer"
    assert "solve returned 2 tensor(s); expected 1 (C)" in wrong["message"]


def test_each_empty_call_of_the_calibration_follows_the_workers_own_work():
    """The empty calls pass the GPU from the worker to the solution's process, as timed calls do
    after the worker's flush: `before` runs ahead of every one, outside its round trip, after a
    preparation request of its own (as a timed call's)."""
    from generator.judge.rounds import CALIBRATION_CALLS, CALIBRATION_WARMUP, calibrate

    events = []

    class Process:
        def request(self, message, timeout, where):
            events.append(("call", message["op"], message.get("isolate")))
            return {"ok": True, "ms": 0.0}

    found = calibrate(Process(), 5.0, lambda: events.append(("before",)))
    per_mode = CALIBRATION_WARMUP + CALIBRATION_CALLS
    assert sorted(found) == [False, True]
    assert events[0::3] == [("call", "prepare_call", None)] * (2 * per_mode)
    assert events[1::3] == [("before",)] * (2 * per_mode)
    assert (
        events[2::3]
        == [("call", "calibrate", False)] * per_mode + [("call", "calibrate", True)] * per_mode
    )


# ----------------------------------------------------------------- a GPU run short of time


def test_timing_order_puts_the_named_jobs_first_and_may_skip_the_functional_cases():
    from generator.judge.commands import timing_order

    jobs = [j for j in timed_entries() if j.name in ("timing_honest", "timing_replay_outputs")]
    plan = Plan({KEY_142: PlanChallenge(KEY_142, str(SMALL_142))}, jobs)
    before = {j.name: j.priority for j in plan.jobs}
    timing_order(plan, ["*/timing_replay_outputs/*"], timed_only=False)
    assert {j.name: j.priority for j in plan.jobs} == {
        "timing_honest": before["timing_honest"],
        "timing_replay_outputs": -1,
    }
    assert before["timing_honest"] >= 0
    # several patterns: in their order, each before every job named by none
    timing_order(plan, ["*/timing_honest/*", "*/timing_*/*"], timed_only=False)
    ordered = sorted(plan.jobs, key=lambda j: j.priority)
    assert [j.name for j in ordered] == ["timing_honest", "timing_replay_outputs"]
    assert all(j.priority < 0 for j in plan.jobs)
    assert all(j.functional for j in plan.jobs)
    timing_order(plan, [], timed_only=True)
    assert not any(j.functional for j in plan.jobs)


@pytest.mark.slow
def test_timed_only_jobs_are_still_judged_by_their_checked_calls(judge_cache):
    from generator.judge.commands import timing_order

    jobs = [j for j in timed_entries() if j.name in ("timing_honest", "timing_replay_outputs")]
    plan = timing_order(Plan({KEY_142: PlanChallenge(KEY_142, str(SMALL_142))}, jobs), [], True)
    options = SuiteOptions(device="cpu", perf=True, jobs=1, timeout=60.0, perf_options=OPTIONS)
    rows = {row["name"]: row for row in run_plan(plan, options, judge_cache)}
    assert rows["timing_honest"]["verdict"] == "pass" and rows["timing_honest"]["perf"]
    assert rows["timing_replay_outputs"]["verdict"] == "wrong_answer"
    assert all(row["ok"] for row in rows.values()), rows
