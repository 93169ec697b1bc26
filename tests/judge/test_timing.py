"""The timing harness's statistics and stopping rules (host clocks; CUDA events on a GPU)."""

from __future__ import annotations

import math
import time

import pytest
import torch

from generator.judge.timing import (
    PerfOptions,
    PerfReport,
    Timing,
    measure,
    relative_error,
    time_solution,
)

FAST = PerfOptions(budget_s=2.0, warmup_s=0.0, flush_bytes=1 << 16, copy_bytes=1 << 20)


def test_relative_error_of_the_mean():
    assert relative_error([1.0]) == math.inf
    assert relative_error([2.0, 2.0, 2.0]) == 0.0
    samples = [1.0, 3.0] * 50  # stdev ~1.005, mean 2, n 100
    assert relative_error(samples) == pytest.approx(1.005 / 10 / 2, rel=1e-2)


def spin(seconds: float) -> None:
    """A busy wait: steadier than sleep() on a loaded machine, where sleeps overshoot at random."""
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def test_stable_function_converges_with_few_reps_and_counts_flushes_out():
    flushes = []
    patient = PerfOptions(budget_s=8.0, warmup_s=0.0, flush_bytes=1 << 16, copy_bytes=1 << 20)
    timing = measure(lambda: spin(0.002), "cpu", patient, flush=lambda: flushes.append(1))
    assert timing.converged
    assert patient.min_reps <= timing.reps < 2000
    assert 1.9 <= timing.median_ms < 10
    assert timing.min_ms <= timing.median_ms <= timing.quantile(0.9)
    assert len(flushes) == timing.reps  # one flush before every timed call, none while warming


def test_noisy_function_stops_at_the_budget():
    options = PerfOptions(budget_s=0.3, warmup_s=0.0, target_rel_err=1e-9, max_reps=10_000)
    started = time.perf_counter()
    timing = measure(lambda: None, "cpu", options)
    assert not timing.converged
    assert time.perf_counter() - started < 3.0


def test_max_reps_caps_the_loop():
    options = PerfOptions(budget_s=100.0, warmup_s=0.0, target_rel_err=0.0, max_reps=40)
    timing = measure(lambda: None, "cpu", options)
    assert timing.reps == 40 and not timing.converged


def test_report_derives_bandwidth_from_declared_traffic():
    timing = Timing([2.0, 2.0, 2.0], "host", True, 0.1)
    data = PerfReport(timing, copy_gbps=1000.0, min_bytes=1e9).to_json()
    assert data["median_ms"] == 2.0
    assert data["gbps"] == pytest.approx(500.0)
    assert data["pct_of_copy"] == pytest.approx(50.0)
    assert data["spread"] == 0.0 and data["reps"] == 3


def test_time_solution_on_cpu_measures_copy_bandwidth():
    src = torch.ones(1 << 18)
    dst = torch.empty_like(src)
    report = time_solution(lambda: dst.copy_(src), "cpu", FAST, min_bytes=2 * 4 * (1 << 18))
    data = report.to_json()
    assert data["copy_gbps"] > 0 and data["gbps"] > 0 and data["clock"] == "host"


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_cuda_events_time_a_copy_and_agree_with_the_clock():
    options = PerfOptions(budget_s=2.0)
    src = torch.ones(1 << 26, device="cuda")
    dst = torch.empty_like(src)
    report = time_solution(lambda: dst.copy_(src), "cuda", options, min_bytes=2 * src.nbytes)
    data = report.to_json()
    assert data["clock"] == "cuda_events" and data["converged"] and not data["note"]
    # the same copy, timed as a solution, runs at (nearly) the measured copy bandwidth
    assert 50 < data["pct_of_copy"] < 150
