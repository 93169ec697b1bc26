"""The bound on the times a solution's process reports: the worker's own figure per call is the
round trip less that of an empty call made among the timed calls, after the same preparation.

The figures are those of the H200 run of 2026-12-01 23:18 UTC (benchmarks/results): the empty
calls made before the load cost about 0.17 ms less than those of a loaded solution's process, and
the bound of those alone replaced the honest median of 142's CUDA solution (0.195 ms) with
0.363 ms. Only the arithmetic of the bound is asserted here, never a time measured in the test.
"""

from __future__ import annotations

from generator.judge.rounds import EMPTY_GROWTH_MAX_MS, ClockBound

MS = 1e-3
EMPTY_BEFORE_LOAD = 0.35 * MS  # an empty call's round trip before the solution is loaded
LOADED_GROWTH = 0.168 * MS  # what a round costs more once the solution's process is loaded
CUDA_142_MS = 0.195  # the CUDA solution's own median (CUDA events)


def _bound(growth: float, calls: int = 9) -> ClockBound:
    bound = ClockBound(EMPTY_BEFORE_LOAD)
    for _ in range(calls):
        bound.add_empty(EMPTY_BEFORE_LOAD + growth)
    return bound


def _trips(call_ms: float) -> list:
    """Round trips of timed calls whose work takes `call_ms` on the device, in a loaded process."""
    return [EMPTY_BEFORE_LOAD + LOADED_GROWTH + call_ms * MS] * 35


def test_the_empty_calls_before_the_load_alone_replaced_an_honest_median():
    before_only = ClockBound(EMPTY_BEFORE_LOAD)
    assert round(before_only.judge_ms(_trips(CUDA_142_MS)), 3) == 0.363
    assert before_only.undercut(CUDA_142_MS, _trips(CUDA_142_MS))


def test_an_honest_median_stands_against_the_empty_calls_among_the_timed_ones():
    bound = _bound(LOADED_GROWTH)
    assert bound.trusted()
    assert round(bound.judge_ms(_trips(CUDA_142_MS)), 3) == CUDA_142_MS
    assert not bound.undercut(CUDA_142_MS, _trips(CUDA_142_MS))


def test_a_forged_clock_is_still_caught():
    # timing_patch_elapsed_time on the H200: 0.217 ms reported for about 2.67 ms of work
    bound = _bound(LOADED_GROWTH)
    assert bound.undercut(0.217, _trips(2.67))
    assert round(bound.call_ms(_trips(2.67)[0]), 2) == 2.67


def test_slowed_empty_calls_buy_at_most_the_growth_the_judge_trusts():
    slowed = _bound(LOADED_GROWTH + 5.0 * MS)  # a solution that sleeps in every empty call
    assert not slowed.trusted() and slowed.offset_s() == EMPTY_BEFORE_LOAD
    assert slowed.undercut(CUDA_142_MS, _trips(5.0 + CUDA_142_MS))
    edge = _bound(EMPTY_GROWTH_MAX_MS * MS)
    assert edge.trusted()


def test_empty_calls_faster_than_before_the_load_do_not_lower_the_offset():
    faster = _bound(-0.1 * MS)
    assert faster.offset_s() == EMPTY_BEFORE_LOAD
    assert ClockBound(EMPTY_BEFORE_LOAD).offset_s() == EMPTY_BEFORE_LOAD  # none made yet


def test_the_record_names_both_figures():
    record = _bound(LOADED_GROWTH, calls=4).record()
    assert record == {
        "before_load": 0.35,
        "loaded": 0.518,
        "loaded_calls": 4,
        "trusted": True,
        "noise": 0.0,
    }


def test_the_slack_covers_what_the_workers_clock_cannot_tell_apart():
    """Empty calls whose round trips spread by 0.16 ms (p10-p90): a report 0.05 ms under the
    worker's figure stands, a forged one far under it does not."""
    bound = ClockBound(EMPTY_BEFORE_LOAD)
    for index in range(21):
        bound.add_empty(EMPTY_BEFORE_LOAD + LOADED_GROWTH + (index - 10) * 0.01 * MS)
    assert round(bound.noise_ms(), 4) == 0.08
    trips = _trips(0.112)
    assert not bound.undercut(0.0616, trips)  # 143's CUDA median against the worker's 0.112 ms
    assert bound.undercut(0.01, trips)
    assert ClockBound(EMPTY_BEFORE_LOAD).noise_ms() == 0.0
