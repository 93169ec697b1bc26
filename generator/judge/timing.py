"""The timing harness: what `--perf` measures, and how.

The judge's timed calls are driven from its worker (generator/judge/rounds.py), one request per
call: before each, outside the clock, the worker writes the call's inputs and resets its outputs,
flushes the L2 cache (writes a buffer of at least 256 MB, then reads another, so that no dirty
line is left to write back during the timed call) and synchronises; the solution's process then
runs `timed_call`: it holds the stream busy for about 0.1 ms (so that the solution's launch
overlaps it, as it overlaps the flush in the field's usual harnesses), records a CUDA event, runs
the solution, records a second event and synchronises. A language that may run on streams of its
own (JAX, Mojo's DeviceContext) and is not seen ordered with the current stream
(`stream_ordered`) is `isolated`: the device is synchronised instead of held busy, so its work
cannot overlap anything, at the price of counting its launch latency. On the CPU the call is timed
with host clocks.

`adaptive` holds the stopping rules both loops share: after a warm-up, repetitions run in
batches until the relative standard error of the mean falls below 1% or the time budget is
spent; the report gives median, min, mean, spread (p10..p90) and the count. `measure` is the
in-process loop (the copy bandwidth, benchmarks/harness_check.py), `measure_rounds` times a
function as the judge's rounds do, in one process.
"""

from __future__ import annotations

import math
import statistics
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Tuple

import torch

MIB = 1024 * 1024


@dataclass
class PerfOptions:
    budget_s: float = 3.0  # per measured function, after warm-up
    target_rel_err: float = 0.01  # relative standard error of the mean
    min_reps: int = 10
    max_reps: int = 5000
    warmup_calls: int = 3
    warmup_s: float = 0.1
    flush_bytes: int = 256 * MIB
    copy_bytes: int = 1024 * MIB  # source size of the copy-bandwidth measurement

    @classmethod
    def from_json(cls, data: Optional[Dict[str, Any]]) -> "PerfOptions":
        known = {k: v for k, v in (data or {}).items() if k in cls.__dataclass_fields__}
        return cls(**known)


@dataclass
class Timing:
    samples_ms: List[float] = field(repr=False)
    clock: str  # "cuda_events" or "host"
    converged: bool
    seconds: float  # wall time spent measuring

    @property
    def reps(self) -> int:
        return len(self.samples_ms)

    @property
    def median_ms(self) -> float:
        return statistics.median(self.samples_ms)

    @property
    def min_ms(self) -> float:
        return min(self.samples_ms)

    @property
    def mean_ms(self) -> float:
        return statistics.fmean(self.samples_ms)

    def quantile(self, q: float) -> float:
        ordered = sorted(self.samples_ms)
        return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]

    @property
    def rel_err(self) -> float:
        return relative_error(self.samples_ms)

    def summary(self) -> Dict[str, Any]:
        return {
            "median_ms": self.median_ms,
            "min_ms": self.min_ms,
            "mean_ms": self.mean_ms,
            "p10_ms": self.quantile(0.1),
            "p90_ms": self.quantile(0.9),
            "spread": (
                (self.quantile(0.9) - self.quantile(0.1)) / self.median_ms
                if self.median_ms > 0
                else 0.0
            ),
            "rel_err_of_mean": self.rel_err,
            "reps": self.reps,
            "converged": self.converged,
            "clock": self.clock,
            "seconds": self.seconds,
        }


def relative_error(samples: List[float]) -> float:
    """Standard error of the mean over the mean (inf for fewer than two samples)."""
    if len(samples) < 2:
        return math.inf
    mean = statistics.fmean(samples)
    if mean <= 0:
        return math.inf
    return statistics.stdev(samples) / math.sqrt(len(samples)) / mean


class Flush:
    """Evicts the caches before each timed call: writes `nbytes`, then reads another `nbytes`.

    Writing alone leaves the L2 full of dirty lines, and writing them back to memory then
    competes with the timed call's own traffic (measured on an H200: 10% of a 70 us kernel,
    3% of a 200 us one). The read that follows leaves the L2 holding clean, unrelated lines.
    """

    def __init__(self, device: str, nbytes: int):
        size = max(nbytes, 1)
        self.buffer: Optional[torch.Tensor] = torch.empty(size, dtype=torch.uint8, device=device)
        self.clean: Optional[torch.Tensor] = torch.zeros(size, dtype=torch.uint8, device=device)

    def __call__(self) -> None:
        self.buffer.zero_()
        self.clean.max()

    def release(self) -> None:
        self.buffer = None
        self.clean = None


def _sync(device: str) -> None:
    if device.startswith("cuda"):
        torch.cuda.synchronize()


def adaptive(
    batch: Callable[[int], List[float]],
    options: PerfOptions,
    now: Callable[[], float] = time.perf_counter,
) -> Timing:
    """Samples from `batch(count)` (which may return fewer, e.g. when its own time is up) in
    batches of 5, doubling to 100, until the relative error of the mean is below the target
    (after `min_reps`), the budget is spent or `max_reps` samples were taken."""
    started = now()
    samples: List[float] = []
    size = 5
    converged = False
    while True:
        samples.extend(batch(size))
        if len(samples) >= options.min_reps and relative_error(samples) < options.target_rel_err:
            converged = True
            break
        spent = now() - started
        if spent > options.budget_s or len(samples) >= options.max_reps:
            break
        size = min(100, size * 2, options.max_reps - len(samples))
    return Timing(samples, "host", converged, now() - started)


def warm_up(fn: Callable[[], Any], options: PerfOptions, now: Callable[[], float]) -> int:
    """At least `warmup_calls` calls, and calls until `warmup_s` have passed; the count."""
    deadline = now() + options.warmup_s
    calls = 0
    while calls < options.warmup_calls or now() < deadline:
        fn()
        calls += 1
    return calls


def measure(
    fn: Callable[[], Any],
    device: str,
    options: PerfOptions,
    flush: Optional[Callable[[], None]] = None,
    clock: Optional[str] = None,
    isolate: bool = False,
    now: Callable[[], float] = time.perf_counter,
) -> Timing:
    """Time `fn` adaptively; `clock` defaults to CUDA events on a GPU, host clocks elsewhere.

    `now` is the host clock (seconds) for the warm-up, the budget and host-clock samples; tests
    pass a fake one so that the stopping rules are checked without real time."""
    flush = flush or (lambda: None)
    clock = clock or ("cuda_events" if device.startswith("cuda") else "host")
    warm_up(fn, options, now)
    _sync(device)
    timing = adaptive(
        lambda count: _batch(fn, device, flush, clock, count, isolate, now), options, now
    )
    timing.clock = clock
    return timing


#: GPU clock cycles the stream is held busy before a timed call (about 0.1 ms on a 2 GHz part):
#: the solution's launch is queued meanwhile, so it is not timed, as it is not behind a flush. A
#: language whose call does more on the host before its work is queued (JAX's dispatch and its
#: buffer exchanges) holds the stream longer (`Language.launch_cover_cycles`).
LAUNCH_COVER_CYCLES = 200_000


class CallClock:
    """What the solution's process times each call with, made before the solution is loaded.

    It keeps the functions it reads (the host clocks, CUDA's synchronisation and sleep, the event
    methods, the current stream) as they were then, and two events made then: a solution that
    patches `time.perf_counter`, `torch.cuda.Event.elapsed_time`, `Event.record` or this module
    afterwards changes nothing this clock reads. A solution runs in the same process, so a
    deliberate forgery can still reach this object; that is what the judge's own clock bounds
    (generator/judge/rounds.py)."""

    def __init__(self, device: str):
        self.gpu = is_gpu(device)
        self._perf_counter = time.perf_counter
        self.now_ns = time.monotonic_ns
        if self.gpu:
            self._sync = getattr(torch._C, "_cuda_synchronize", None) or torch.cuda.synchronize
            self._sleep = getattr(torch._C, "_cuda_sleep", None) or torch.cuda._sleep
            self._record = torch.cuda.Event.record
            self._elapsed = torch.cuda.Event.elapsed_time
            self._stream = torch.cuda.current_stream
            self._start = torch.cuda.Event(enable_timing=True)
            self._end = torch.cuda.Event(enable_timing=True)

    def call(
        self, fn: Callable[[], Any], isolate: bool, cover_cycles: int = LAUNCH_COVER_CYCLES
    ) -> Tuple[float, Dict[str, int]]:
        """Milliseconds of one call (between CUDA events on the current stream, held busy first,
        or with the device synchronised first when `isolate`; then the device is synchronised;
        on the CPU the host clock), and the host times of its steps (monotonic nanoseconds:
        `begun`, `returned` once `fn` returned, `done` once the device was synchronised), which
        the judge reads only to say where a round's time goes."""
        begun = self.now_ns()
        if not self.gpu:
            started = self._perf_counter()
            fn()
            ms = (self._perf_counter() - started) * 1e3
            returned = self.now_ns()
            return ms, {"begun": begun, "returned": returned, "done": returned}
        if isolate:
            self._sync()
        else:
            self._sleep(cover_cycles)
        stream = self._stream()
        self._record(self._start, stream)
        fn()
        returned = self.now_ns()
        self._record(self._end, self._stream())
        self._sync()
        done = self.now_ns()
        return self._elapsed(self._start, self._end), {
            "begun": begun,
            "returned": returned,
            "done": done,
        }


def timed_call(fn: Callable[[], Any], device: str, isolate: bool) -> float:
    """Milliseconds of one call as the solution's process times it (`CallClock.call`), with a
    clock made now: for in-process measurements (benchmarks/harness_check.py)."""
    return CallClock(device).call(fn, isolate)[0]


def _nothing() -> None:
    return None


def empty_call(device: str, isolate: bool) -> float:
    """`timed_call` without a solution: what a round costs besides the call."""
    return timed_call(_nothing, device, isolate)


def measure_rounds(
    fn: Callable[[], Any],
    device: str,
    options: PerfOptions,
    isolate: bool = False,
    prepare: Optional[Callable[[], None]] = None,
    now: Callable[[], float] = time.perf_counter,
    cover_cycles: int = LAUNCH_COVER_CYCLES,
) -> Timing:
    """Time `fn` as the judge's rounds do, in this process: before each call `prepare` (untimed),
    the L2 flush and a synchronisation, then `CallClock.call`."""
    cache_flush = Flush(device, options.flush_bytes)
    clock = CallClock(device)

    def one_round() -> float:
        if prepare is not None:
            prepare()
        cache_flush()
        _sync(device)
        return clock.call(fn, isolate, cover_cycles)[0]

    warm_up(fn, options, now)
    _sync(device)
    timing = adaptive(lambda count: [one_round() for _ in range(count)], options, now)
    timing.clock = "cuda_events" if is_gpu(device) else "host"
    cache_flush.release()
    return timing


def _batch(
    fn, device: str, flush, clock: str, count: int, isolate: bool, now: Callable[[], float]
) -> List[float]:
    if clock == "cuda_events":
        events = []
        for _ in range(count):
            flush()
            if isolate:
                torch.cuda.synchronize()
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            events.append((start, end))
        torch.cuda.synchronize()
        return [start.elapsed_time(end) for start, end in events]
    out = []
    for _ in range(count):
        flush()
        _sync(device)
        t0 = now()
        fn()
        _sync(device)
        out.append((now() - t0) * 1e3)
    return out


#: GPU clock cycles the current stream is held busy while the solution is called (about 1 ms on a
#: 2 GHz part): longer than any launch, so unordered work shows itself.
ORDER_PROBE_CYCLES = 2_000_000


def stream_ordered(
    fn: Callable[[], Any],
    inputs: List[torch.Tensor],
    outputs: List[torch.Tensor],
    prepare: Optional[Callable[[], None]] = None,
    returned: Optional[Callable[[], List[torch.Tensor]]] = None,
) -> bool:
    """Whether `fn`'s GPU work is ordered with the current stream, as a kernel launched there is.

    One call gives the reference outputs. Then the inputs are overwritten with garbage, the stream
    is held busy, the true inputs are written back on it, `fn` is called, and the outputs are
    copied on the stream right away: the copy matches the reference only if `fn`'s work waited
    for the inputs and the stream waited for `fn`'s work (or `fn` finished before returning).
    `prepare` restores inout tensors before each call. `returned` gives the tensors the last call
    returned, for a language that returns its outputs (JAX): those are read instead of `outputs`."""

    def produced() -> List[torch.Tensor]:
        return list(returned()) if returned is not None else outputs

    torch.cuda.synchronize()
    initial = [t.clone() for t in outputs]
    if prepare is not None:
        prepare()
    fn()
    torch.cuda.synchronize()
    expected = [t.clone() for t in produced()]
    for target, start in zip(outputs, initial):
        target.copy_(start)
    if prepare is not None:
        prepare()
    pristine = [t.clone() for t in inputs]
    for t in inputs:
        t.fill_(_garbage(t))
    torch.cuda._sleep(ORDER_PROBE_CYCLES)
    for t, data in zip(inputs, pristine):
        t.copy_(data)
    fn()
    seen = [t.clone() for t in produced()]
    torch.cuda.synchronize()
    return len(seen) == len(expected) and all(_same_values(a, b) for a, b in zip(seen, expected))


def _garbage(t: torch.Tensor) -> Any:
    """A value no input is made of: NaN, or the dtype's largest integer."""
    if t.is_floating_point() or t.is_complex():
        return float("nan")
    if t.dtype == torch.bool:
        return True
    return torch.iinfo(t.dtype).max


def _same_values(a: torch.Tensor, b: torch.Tensor) -> bool:
    if a.is_floating_point() or a.is_complex():
        return bool(torch.allclose(a, b, rtol=1e-4, atol=1e-6, equal_nan=True))
    return bool(torch.equal(a, b))


@dataclass
class PerfReport:
    timing: Timing
    copy_gbps: Optional[float]
    min_bytes: Optional[float]
    note: str = ""
    isolated: bool = False
    #: bandwidth (GB/s, % of copy) is reported on a GPU only: a CPU run is no measure of it
    on_gpu: bool = True

    def to_json(self) -> Dict[str, Any]:
        data = self.timing.summary()
        data["isolated"] = self.isolated
        seconds = self.timing.median_ms * 1e-3
        gbps = (
            self.min_bytes / seconds / 1e9
            if self.on_gpu and self.min_bytes and seconds > 0
            else None
        )
        data.update(
            {
                "min_bytes": self.min_bytes,
                "gbps": gbps,
                "copy_gbps": self.copy_gbps,
                "pct_of_copy": 100.0 * gbps / self.copy_gbps if gbps and self.copy_gbps else None,
                "note": self.note,
            }
        )
        return data


def is_gpu(device: str) -> bool:
    return device.startswith("cuda")


def copy_bandwidth(device: str, options: PerfOptions) -> Optional[float]:
    """GB/s of a device-to-device copy (bytes read + bytes written), measured like a solution;
    None on the CPU, where no bandwidth is reported."""
    if options.copy_bytes <= 0 or not is_gpu(device):
        return None
    count = options.copy_bytes // 4
    src = torch.ones(count, dtype=torch.float32, device=device)
    dst = torch.empty_like(src)
    timing = measure(lambda: dst.copy_(src), device, options)
    return 2 * count * 4 / (timing.median_ms * 1e-3) / 1e9
