"""The timing harness's statistics and stopping rules, on a fake host clock (deterministic on a
loaded machine); real clocks only in the GPU test and the CPU smoke test, which assert no speed."""

from __future__ import annotations

import itertools
import math

import pytest
import torch

from generator.dtypes import DTYPES
from generator.judge.timing import (
    PerfOptions,
    PerfReport,
    Timing,
    copy_bandwidth,
    measure,
    measure_rounds,
    relative_error,
    timed_call,
)

FAST = PerfOptions(budget_s=2.0, warmup_s=0.0, flush_bytes=1 << 16, copy_bytes=1 << 20)


def test_relative_error_of_the_mean():
    assert relative_error([1.0]) == math.inf
    assert relative_error([2.0, 2.0, 2.0]) == 0.0
    samples = [1.0, 3.0] * 50  # stdev ~1.005, mean 2, n 100
    assert relative_error(samples) == pytest.approx(1.005 / 10 / 2, rel=1e-2)


class FakeClock:
    """A host clock that moves only when the timed function says it took time."""

    def __init__(self, durations_ms):
        self.now_s = 0.0
        self.durations_ms = itertools.cycle(durations_ms)
        self.calls = 0

    def __call__(self) -> float:
        return self.now_s

    def function(self) -> None:
        self.calls += 1
        self.now_s += next(self.durations_ms) / 1e3


def batch_ends(limit: int):
    """Sample counts where the harness checks its stopping rules: batches of 5, doubling to 100."""
    ends, batch = [], 5
    while not ends or ends[-1] < limit:
        ends.append((ends[-1] if ends else 0) + batch)
        batch = min(100, batch * 2)
    return ends


def test_a_steady_function_converges_at_the_first_check_past_min_reps():
    clock = FakeClock([2.0])
    flushes = []
    options = PerfOptions(budget_s=8.0, warmup_s=0.0, min_reps=10)
    timing = measure(clock.function, "cpu", options, flush=lambda: flushes.append(1), now=clock)
    assert timing.converged and timing.clock == "host"
    assert timing.reps == 15  # batches of 5, then 10: the first check with >= 10 samples
    assert timing.median_ms == pytest.approx(2.0) and timing.rel_err == pytest.approx(0.0)
    assert len(flushes) == timing.reps  # one flush before every timed call, none while warming
    assert clock.calls == options.warmup_calls + timing.reps
    assert timing.seconds == pytest.approx(timing.reps * 2e-3)


def test_a_noisy_function_runs_until_the_error_of_the_mean_is_below_target():
    clock = FakeClock([1.0, 3.0])  # stdev ~1.0, mean 2: needs about 2,500 samples for 1%
    options = PerfOptions(budget_s=1e6, warmup_s=0.0, target_rel_err=0.01, max_reps=10_000)
    timing = measure(clock.function, "cpu", options, now=clock)
    assert timing.converged and timing.rel_err < 0.01
    ends = batch_ends(timing.reps)
    assert ends[-1] == timing.reps
    assert relative_error(timing.samples_ms[: ends[-2]]) >= 0.01  # one batch earlier it was not
    assert 2_000 < timing.reps < 3_000


def test_a_function_that_never_settles_stops_at_the_budget():
    clock = FakeClock([1.0, 5.0, 2.0])
    options = PerfOptions(budget_s=0.3, warmup_s=0.0, target_rel_err=1e-9, max_reps=10_000)
    timing = measure(clock.function, "cpu", options, now=clock)
    assert not timing.converged
    ends = batch_ends(timing.reps)
    assert ends[-1] == timing.reps
    spent_before_last_batch = sum(timing.samples_ms[: ends[-2]]) / 1e3
    assert spent_before_last_batch <= options.budget_s < timing.seconds


def test_the_warm_up_runs_for_its_time_and_at_least_its_calls():
    clock = FakeClock([10.0])
    options = PerfOptions(budget_s=1.0, warmup_s=0.045, warmup_calls=3, min_reps=5)
    timing = measure(clock.function, "cpu", options, now=clock)
    assert clock.calls - timing.reps == 5  # 10 ms calls until 45 ms have passed: more than 3
    short = PerfOptions(budget_s=1.0, warmup_s=0.0, warmup_calls=3, min_reps=5)
    clock = FakeClock([10.0])
    timing = measure(clock.function, "cpu", short, now=clock)
    assert clock.calls - timing.reps == 3


def test_max_reps_caps_the_loop():
    clock = FakeClock([1.0, 2.0])
    options = PerfOptions(budget_s=100.0, warmup_s=0.0, target_rel_err=0.0, max_reps=40)
    timing = measure(clock.function, "cpu", options, now=clock)
    assert timing.reps == 40 and not timing.converged


def test_report_derives_bandwidth_from_declared_traffic():
    timing = Timing([2.0, 2.0, 2.0], "host", True, 0.1)
    data = PerfReport(timing, copy_gbps=1000.0, min_bytes=1e9).to_json()
    assert data["median_ms"] == 2.0
    assert data["gbps"] == pytest.approx(500.0)
    assert data["pct_of_copy"] == pytest.approx(50.0)
    assert data["spread"] == 0.0 and data["reps"] == 3


def test_timing_as_the_rounds_do_on_the_cpu_reports_no_bandwidth():
    """A CPU run times the call; GB/s and % of copy are a GPU's measure only."""
    src = torch.ones(1 << 18)
    dst = torch.empty_like(src)
    prepared = []
    timing = measure_rounds(lambda: dst.copy_(src), "cpu", FAST, prepare=lambda: prepared.append(1))
    assert timing.median_ms > 0 and timing.clock == "host"
    assert len(prepared) == timing.reps  # before every timed call, none while warming up
    assert copy_bandwidth("cpu", FAST) is None
    data = PerfReport(timing, None, 2 * 4 * (1 << 18), on_gpu=False).to_json()
    assert data["copy_gbps"] is None and data["gbps"] is None and data["pct_of_copy"] is None


def test_a_timed_call_on_the_cpu_is_the_host_time_of_the_call():
    calls = []
    assert timed_call(lambda: calls.append(1), "cpu", isolate=False) >= 0
    assert calls == [1]


def test_bandwidth_is_reported_for_a_gpu_timing_only():
    timing = Timing([2.0, 2.0, 2.0], "host", True, 0.1)
    cpu = PerfReport(timing, copy_gbps=1000.0, min_bytes=1e9, on_gpu=False).to_json()
    assert cpu["gbps"] is None and cpu["pct_of_copy"] is None and cpu["median_ms"] == 2.0


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_cuda_events_time_a_copy_as_the_rounds_do():
    options = PerfOptions(budget_s=2.0)
    src = torch.ones(1 << 26, device="cuda")
    dst = torch.empty_like(src)
    timing = measure_rounds(lambda: dst.copy_(src), "cuda", options)
    assert timing.clock == "cuda_events" and timing.converged
    report = PerfReport(timing, copy_bandwidth("cuda", options), 2 * src.nbytes).to_json()
    # the same copy, timed as a solution, runs at (nearly) the measured copy bandwidth
    assert 50 < report["pct_of_copy"] < 150


def _side_stream_double(x, y, wait_before: bool, wait_after: bool):
    """y = 2 x on a stream of its own, ordered with the current stream as asked, else finished
    before returning (as a solution with a context of its own that synchronises)."""
    side = torch.cuda.Stream()

    def run():
        if wait_before:
            side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            torch.mul(x, 2, out=y)
        if wait_after:
            torch.cuda.current_stream().wait_stream(side)
        else:
            side.synchronize()

    return run


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
@pytest.mark.parametrize(
    "wait_before, wait_after, ordered",
    [(True, True, True), (False, False, False), (True, False, True), (False, True, False)],
)
def test_stream_order_is_seen_from_the_outputs(wait_before, wait_after, ordered):
    from generator.judge.timing import stream_ordered

    x = torch.randn(1 << 20, device="cuda")
    y = torch.empty_like(x)
    before = x.clone()
    run = _side_stream_double(x, y, wait_before, wait_after)
    assert stream_ordered(run, [x], [y]) is ordered
    assert torch.equal(x, before)  # the inputs are back as they were


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_work_on_the_current_stream_is_stream_ordered():
    from generator.judge.timing import stream_ordered

    x = torch.randn(1 << 20, device="cuda")
    y = torch.empty_like(x)
    assert stream_ordered(lambda: torch.mul(x, 2, out=y), [x], [y])


@pytest.mark.parametrize("name", sorted(n for n, d in DTYPES.items() if not d.scalar_only))
def test_the_stream_order_check_can_overwrite_every_tensor_dtype(name):
    """Its garbage is a value of the dtype (NaN, else the largest integer): no input is refused."""
    from generator.judge.timing import _garbage

    tensor = torch.zeros(4, dtype=getattr(torch, DTYPES[name].torch))
    tensor.fill_(_garbage(tensor))
    assert not torch.equal(tensor, torch.zeros_like(tensor))


def test_the_call_clock_reads_the_host_clock_it_was_made_with(monkeypatch):
    """A solution that slows `time.perf_counter` a thousandfold after the clock was made (as
    tests/judge/hostile/timing_patch_perf_counter.pytorch.py does) changes nothing it reports:
    a 20 ms sleep still reads at least 20 ms (sleep never returns early, so load cannot fail
    this)."""
    import time as clock_module

    from generator.judge.timing import CallClock

    made = CallClock("cpu")
    real = clock_module.perf_counter
    origin = real()
    monkeypatch.setattr(clock_module, "perf_counter", lambda: origin + (real() - origin) / 1000)
    ms, steps = made.call(lambda: clock_module.sleep(0.02), isolate=False)
    assert ms >= 19.9
    assert steps["begun"] <= steps["returned"] <= steps["done"]
