"""The judge's timed calls, driven from the worker, one request per call: no call can replay an
earlier one's answer, and the solution's own report of its times is bounded by the worker's clock.

The solution's process times each call (CUDA events must be recorded where its kernels are
queued: `timing.timed_call`), but before each call, outside the clock, the worker

- writes the call's inputs: a set of its own from the challenge's performance generator under a
  new secret seed (`fresh`), or, where making one takes longer than FRESH_MAX_S, the performance
  case and one other set in turn (`rotated`); a challenge whose performance case does not change
  with the seed keeps its inputs (`fixed`; only the outputs are reset, and the report says why);
- resets every output to the set's pre-fill (an inout tensor gets the set's values);
- has the solution's process let go of what the last call returned (JAX's arrays) and a
  baseline make its own preparation, in a request of its own: freeing them is the harness's
  work, not the call's, and was once done inside the timed call's request, in the round trip
  that the clock bound reads (a small part of it: on an H200, 2026-12-03, the step from the
  request to the clock's start took 0.137 ms for 142's optimized JAX, 0.125 ms for CUDA's);
- turns persisting L2 lines back to normal, flushes the L2 and synchronises the device.

A secret random share of the calls (CHECK_SHARE; the first two, and at least MIN_CHECKS, the
last always) is checked as a functional case is (bands, inputs, outputs) right when it returns: the
outputs are copied first, so that work still running after `solve` returned shows as outputs not
yet written. A wrong checked call ends the job with its verdict.

The solution's process times each call with a clock it made before the solution was loaded
(`timing.CallClock`): patching `time.perf_counter`, `torch.cuda.Event` or the harness module
afterwards changes nothing it reads. A solution shares that process, so a deliberate forgery can
still reach the clock; hence each reported time must fit in its request's round trip, and their
median may not undercut what the worker saw (the median round trip less that of an empty timed
call) by more than SLACK_SHARE and SLACK_MS; otherwise the solution is timed again on the
worker's clock alone, with the device synchronised before each call (its launch counted), and
the report says so. `RoundSteps` records where the rounds' time goes (to the solution's process,
its host work, its wait for the device, back), to explain the gap between the two figures.

An empty call is the least call of the solution's language, bound as a solution's is, where it
has one (JAX: a jitted `x + 0` on a small buffer, `Language.trivial_call`: a JAX call leaves
0.08-0.1 ms of its own work on the device after what the current stream waits for, which the
device synchronisation ending each round waits for), else an empty function; what every call of
the language costs besides its work is then not counted against a solution. The empty calls are
timed twice. Before the solution is loaded (it cannot slow those), and among
the timed calls, at secret places, each after the worker's same preparation (the last call's inputs
written again, the preparation request, the flush, the synchronisation; `ClockBound`). The
preparation request matters as much as the flush: without it an empty call reached a solution's
process that had waited through the worker's check of the last call, and on an H200 (2026-12-04)
its request took up to 0.18 ms longer to reach the call than a timed call's, which left the
worker's figure for 142's CUDA solution at 0 ms (0.087 ms with the request, for the solution's
0.195: the bound stays coarse, made for gross forgeries). What a
round costs besides the call grows once the solution's process holds its buffers and its
framework (measured on an H200: 0.1-0.5 ms a call more than before the load, for every language,
so that every honest solution fell below the bound of the empty calls before the load). The
bound uses the loaded figure, but never below the first, and trusts it only within
EMPTY_GROWTH_MAX_MS of it: a solution that slows the empty calls so as to forge its own clock
gains at most that; beyond it the first figure holds.

Memory: besides the judged buffers the worker holds one other set at a time (a fresh set, on
which the reference computes a checked call's expected outputs in place) or, `rotated`, two sets
and their expected outputs; in `fresh` mode the performance case's own copy is let go. That is at
most about four times the performance case's footprint, within the five that rule D003 leaves.
"""

from __future__ import annotations

import random
import statistics
import time
from typing import Any, Callable, Dict, List, Optional, Tuple

from generator.judge import verdicts as V
from generator.judge.remote import Stop

#: The longest a fresh set may take to make (generation and materialisation); beyond it the
#: performance case and one other set take turns.
FRESH_MAX_S = 0.25
#: The share of timed calls checked (each drawn in secret), besides the first ones and the last.
CHECK_SHARE = 0.125
#: The first calls are always checked: in `rotated` mode one on each set.
FIRST_CHECKED = 2
#: At least this many checked calls per timing.
MIN_CHECKS = 3
#: Empty timed calls the worker times before the solution is loaded (after a few to warm up).
CALIBRATION_CALLS = 15
CALIBRATION_WARMUP = 3
#: How far the reported median may fall below the worker's own figure before it is replaced
#: (or by half the p10-p90 spread of the empty calls among the timed ones, where that is more):
#: on an H200 the worker's figure of honest calls ran up to 0.05 ms above their CUDA events on
#: calls of 0.06-0.3 ms (2026-12-02), and a solution cannot patch the clock its process times it
#: with (`timing.CallClock`), so the bound is left for gross forgeries.
SLACK_SHARE = 0.25
SLACK_MS = 0.03
#: The share of rounds followed by an empty call among the timed calls (secret places), besides
#: the first EMPTY_FIRST rounds.
EMPTY_SHARE = 0.25
EMPTY_FIRST = 3
#: How far the empty calls among the timed ones may exceed those before the load and still be
#: trusted (milliseconds).
EMPTY_GROWTH_MAX_MS = 0.6

_SECRET = random.SystemRandom()


def calibrate(
    solution: Any, timeout: float, before: Optional[Callable[[], None]] = None
) -> Dict[bool, float]:
    """Median round trip (seconds) of an empty timed call, not isolated and isolated; asked of
    the solution's process before the solution is loaded, so the solution cannot slow it.

    `before` runs ahead of each empty call, off the clock, as the worker's own GPU work (the L2
    flush, a synchronisation) runs ahead of each timed call: the GPU then passes from the worker's
    process to the solution's in the empty calls too, so that what that costs is not counted
    against the solution (measured on an H200: 0.24-0.48 ms a call)."""
    found = {}
    for isolate in (False, True):
        trips = []
        for index in range(CALIBRATION_WARMUP + CALIBRATION_CALLS):
            solution.request({"op": "prepare_call", "empty": True}, timeout, "calibration")
            if before is not None:
                before()
            started = time.monotonic()
            solution.request({"op": "calibrate", "isolate": isolate}, timeout, "calibration")
            if index >= CALIBRATION_WARMUP:
                trips.append(time.monotonic() - started)
        found[isolate] = statistics.median(trips)
    return found


class ClockBound:
    """What the worker's clock says of the calls of one kind (on the caller's stream, or
    isolated): their median round trip less that of an empty call, the one measured among the
    timed calls where it is trusted (the module's docstring), else the one before the load."""

    def __init__(self, before_load_s: float):
        self.before_load_s = before_load_s
        self.loaded_s: List[float] = []

    def add_empty(self, trip_s: float) -> None:
        self.loaded_s.append(trip_s)

    def loaded_median_s(self) -> Optional[float]:
        return statistics.median(self.loaded_s) if self.loaded_s else None

    def trusted(self) -> bool:
        """Whether the empty calls among the timed ones stand (within EMPTY_GROWTH_MAX_MS)."""
        loaded = self.loaded_median_s()
        return loaded is not None and loaded - self.before_load_s <= EMPTY_GROWTH_MAX_MS / 1e3

    def offset_s(self) -> float:
        loaded = self.loaded_median_s()
        if loaded is None or not self.trusted():
            return self.before_load_s
        return max(loaded, self.before_load_s)

    def call_ms(self, trip_s: float) -> float:
        """The worker's figure for one call."""
        return max(trip_s - self.offset_s(), 0.0) * 1e3

    def judge_ms(self, trips_s: List[float]) -> float:
        return self.call_ms(statistics.median(trips_s))

    def noise_ms(self) -> float:
        """Half the p10-p90 spread of the empty calls' round trips among the timed calls: what
        the worker's own clock cannot tell apart (0 with fewer than five of them)."""
        if len(self.loaded_s) < 5:
            return 0.0
        ordered = sorted(self.loaded_s)
        low, high = (
            ordered[round(0.1 * (len(ordered) - 1))],
            ordered[round(0.9 * (len(ordered) - 1))],
        )
        return (high - low) / 2 * 1e3

    def slack_ms(self, seen_ms: float) -> float:
        return max(SLACK_SHARE * seen_ms, SLACK_MS, self.noise_ms())

    def undercut(self, reported_median_ms: float, trips_s: List[float]) -> bool:
        """Whether the reported median falls below the worker's by more than the slack."""
        seen = self.judge_ms(trips_s)
        return reported_median_ms < seen - self.slack_ms(seen)

    def record(self) -> Dict[str, Any]:
        loaded = self.loaded_median_s()
        return {
            "before_load": round(self.before_load_s * 1e3, 4),
            "loaded": None if loaded is None else round(loaded * 1e3, 4),
            "loaded_calls": len(self.loaded_s),
            "trusted": self.trusted(),
            "noise": round(self.noise_ms(), 4),
        }


class RoundSteps:
    """Where a round's time goes, as the two processes' clocks say (monotonic, one host): to the
    solution's process, its host work up to the call's return (the stream's cover or
    synchronisation, the events, the call's launch), its wait for the device, and back. The
    solution's process could forge its part: these are read to explain the clock bound, never
    to judge."""

    PARTS = ("there", "host", "device_wait", "back")

    def __init__(self) -> None:
        self.parts: Dict[str, Dict[str, List[float]]] = {"timed": {}, "empty": {}}

    def add(self, kind: str, sent: int, reply: Any, back: int) -> None:
        steps = reply.get("steps_ns") if isinstance(reply, dict) else None
        try:
            begun, returned, done = (int(steps[k]) for k in ("begun", "returned", "done"))
        except (KeyError, TypeError, ValueError):
            return
        found = (begun - sent, returned - begun, done - returned, back - done)
        for name, ns in zip(self.PARTS, found):
            self.parts[kind].setdefault(name, []).append(ns / 1e6)

    def record(self) -> Dict[str, Any]:
        return {
            kind: {name: round(statistics.median(v), 4) for name, v in parts.items()}
            for kind, parts in self.parts.items()
            if parts
        }


class InputSets:
    """Where each timed call's inputs come from (the module's docstring): `fresh`, `rotated` or
    `fixed`, chosen by making one set first."""

    def __init__(self, judge: Any, values: Dict[str, Any], expected: Dict[str, Any]):
        self.judge = judge
        self.inputs = [p.name for p in judge.params if p.is_tensor and p.direction != "out"]
        self.case: Optional[Dict[str, Any]] = values
        self.expected: Optional[Dict[str, Any]] = expected
        self.mode, self.why = "fixed", ""
        self.made = 0
        self.generation_s = 0.0
        self.pending: Optional[Dict[str, Any]] = None
        self.rotation: List[Tuple[Dict[str, Any], Dict[str, Any]]] = []
        self._choose()

    def _make(self) -> Dict[str, Any]:
        from generator.judge.cases import performance

        started = time.perf_counter()
        try:
            values = performance(
                self.judge.challenge, self.judge.params, _SECRET.randrange(2**31 - 16)
            ).values
        except Exception as exc:
            raise Stop(V.JUDGE_ERROR, f"performance case (another set): {exc}") from None
        self.judge.sync()
        self.generation_s = time.perf_counter() - started
        self.made += 1
        return values

    def _choose(self) -> None:
        other = self._make()
        problem = self._incompatible(other)
        if problem:
            self.why = problem
        elif all(self._same(other[name], self.case[name]) for name in self.inputs):
            self.why = "the performance case does not change with the seed"
        elif self.generation_s <= FRESH_MAX_S:
            self.mode, self.pending = "fresh", other
            self.case = self.expected = None  # the judged buffers hold what is still needed
        else:
            self.mode = "rotated"
            self.why = f"making a set takes {self.generation_s:.2f} s"
            self.rotation = [(self.case, self.expected), (other, self.judge.reference(other))]
            self.case = self.expected = None

    def _incompatible(self, other: Dict[str, Any]) -> str:
        """Why another set cannot stand in for the performance case (its sizes differ)."""
        import torch

        for p in self.judge.params:
            mine, theirs = self.case[p.name], other.get(p.name)
            if isinstance(mine, torch.Tensor):
                if not isinstance(theirs, torch.Tensor) or theirs.shape != mine.shape:
                    return f"another performance set has a different shape of {p.name}"
                if theirs.dtype != mine.dtype:
                    return f"another performance set has a different dtype of {p.name}"
            elif theirs != mine:
                return f"another performance set has {p.name} = {theirs!r}, not {mine!r}"
        return ""

    @staticmethod
    def _same(a: Any, b: Any) -> bool:
        import torch

        return bool(torch.equal(a, b))

    def next(self, index: int) -> Tuple[Dict[str, Any], Optional[Dict[str, Any]]]:
        """The values of call `index` and their expected outputs (None: not computed yet, a
        fresh set's, which the reference computes in place when the call is checked)."""
        if self.mode == "fresh":
            values, self.pending = self.pending or self._make(), None
            return values, None
        if self.mode == "rotated":
            return self.rotation[index % len(self.rotation)]
        return self.case, self.expected

    def record(self) -> Dict[str, Any]:
        sets = {"fresh": self.made, "rotated": 2, "fixed": 1}[self.mode]
        return {
            "inputs": self.mode,
            "why": self.why,
            "sets": sets,
            "generation_ms": round(self.generation_s * 1e3, 3),
        }


class TimedRounds:
    """The timed calls of one performance case (the module's docstring)."""

    def __init__(
        self,
        judge: Any,
        solution: Any,
        guarded: Any,
        sets: InputSets,
        options: Any,
        calibration: Dict[bool, float],
    ):
        from generator.judge.timing import Flush

        self.judge, self.solution, self.guarded, self.sets = judge, solution, guarded, sets
        self.options, self.calibration = options, calibration
        self.tensors = [p.name for p in judge.params if p.is_tensor]
        self.outputs = [p.name for p in judge.params if p.is_tensor and p.direction != "in"]
        #: outputs that reach the buffers only when asked (JAX's returned arrays, a baseline that
        #: returns its outputs): checked after the call maps them, not copied at once
        self.collected = bool(judge.language.drops_outputs or judge.job.get("baseline"))
        self.flush = Flush(judge.device, options.flush_bytes)
        self.gpu = judge.device.startswith("cuda")
        self.calls = self.checks = 0
        self.trips: List[float] = []
        self.l2_reset: Optional[bool] = None
        self.replaced = False
        #: what the empty calls among the timed ones made (`least call` of the language, or an
        #: `empty function`), as the solution's process says
        self.empty_call: Optional[str] = None
        self.judge_ms: Optional[float] = None
        self.reported_ms: Optional[float] = None
        self.bounds = {mode: ClockBound(calibration[mode]) for mode in (False, True)}
        self.steps = RoundSteps()
        self._last: Optional[Dict[str, Any]] = None

    # ------------------------------------------------------------------ one call
    def _write(self, values: Dict[str, Any]) -> None:
        for name in self.tensors:
            self.guarded.values[name].copy_(values[name])

    def _quiet(self) -> None:
        """Persisting L2 lines back to normal, the L2 flushed, the device idle."""
        if self.gpu:
            from generator.judge.shared import driver

            self.l2_reset = driver().reset_persisting_l2()
        self.flush()
        self.judge.sync()

    def empty(self, isolate: bool) -> None:
        """An empty timed call after the worker's own preparation, as a timed call follows it:
        the last call's inputs written again, the L2 flushed, the device idle."""
        if self._last is not None:
            self._write(self._last)
        self.solution.request({"op": "prepare_call", "empty": True}, self.judge.timeout, "timing")
        self._quiet()
        sent = time.monotonic_ns()
        reply = self.solution.request(
            {"op": "calibrate", "isolate": isolate}, self.judge.timeout, "timing"
        )
        back = time.monotonic_ns()
        self.bounds[isolate].add_empty((back - sent) / 1e9)
        self.steps.add("empty", sent, reply, back)
        if isinstance(reply, dict):
            self.empty_call = reply.get("call")

    def one(self, index: int, checked: bool, isolate: bool) -> Tuple[float, float]:
        """One timed call: (the reported milliseconds, the worker's round trip in seconds)."""
        where = "timing"
        values, expected = self.sets.next(index)
        self._write(values)
        if expected is None and checked:
            expected = self.judge.expected_in_place(values)
        # a request of its own, outside the round trip the clock bound reads
        self.solution.request({"op": "prepare_call"}, self.judge.timeout, where)
        self._last = values
        self._quiet()
        sent = time.monotonic_ns()
        reply = self.solution.request(
            {"op": "timed_call", "isolate": isolate}, self.judge.timeout, where
        )
        back = time.monotonic_ns()
        trip = (back - sent) / 1e9
        self.steps.add("timed", sent, reply, back)
        self.calls += 1
        if checked:
            self._check(index, values, expected)
        try:
            reported = float(reply["ms"])
        except (KeyError, TypeError, ValueError):
            raise Stop(V.RUNTIME_ERROR, "the solution's process sent no timing") from None
        if not 0 <= reported <= trip * 1e3 * 1.01 + 0.01:
            raise Stop(V.RUNTIME_ERROR, "timing: the reported samples do not fit the wall time")
        return reported, trip

    def _check(self, index: int, values: Dict[str, Any], expected: Dict[str, Any]) -> None:
        outputs = None
        if self.collected:
            self.solution.request({"op": "collect"}, self.judge.timeout, "timing")
        else:  # at once: work left running after solve returned has not written them yet
            outputs = {name: self.guarded.values[name].clone() for name in self.outputs}
        self.checks += 1
        try:
            self.judge.check(self.guarded, values, expected, outputs)
        except Stop as stop:
            stop.message = f"timed call {index + 1}, on inputs the judge wrote: {stop.message}"
            raise

    # ------------------------------------------------------------------ the timing
    def run(self, isolate: bool) -> Tuple[Any, str]:
        """Time the calls; (the Timing, a note). Raises Stop for a wrong checked call."""
        from generator.judge.timing import adaptive

        index = [0]
        host_trips: List[float] = []
        budget, least = self.options.budget_s, self.options.min_reps
        taken = {False: 0, True: 0}
        began = {False: 0.0, True: 0.0}

        def batch(count: int, host: bool) -> List[float]:
            if not taken[host]:
                began[host] = time.monotonic()
            out = []
            for _ in range(count):
                checked = index[0] < FIRST_CHECKED or _SECRET.random() < CHECK_SHARE
                mode = isolate or host
                reported, trip = self.one(index[0], checked, mode)
                if taken[host] < EMPTY_FIRST or _SECRET.random() < EMPTY_SHARE:
                    self.empty(mode)
                index[0] += 1
                if host:  # provisional: restated with the offset of all the empty calls
                    host_trips.append(trip)
                    out.append(self.bounds[True].call_ms(trip))
                else:
                    self.trips.append(trip)
                    out.append(reported)
                taken[host] += 1
                # a batch ends early once the budget is spent (the calls can be slow to prepare)
                if taken[host] >= least and time.monotonic() - began[host] > budget:
                    break
            return out

        timing = adaptive(lambda count: batch(count, False), self.options, time.monotonic)
        timing.clock = "cuda_events" if self.gpu else "host"
        bound = self.bounds[isolate]
        self.judge_ms = bound.judge_ms(self.trips)
        self.reported_ms = timing.median_ms
        note = ""
        if bound.undercut(timing.median_ms, self.trips):
            reported = timing.median_ms
            timing = adaptive(lambda count: batch(count, True), self.options, time.monotonic)
            # the empty calls among these set the offset of every host-clock sample
            timing.samples_ms = [self.bounds[True].call_ms(trip) for trip in host_trips]
            timing.clock = "judge_host"
            self.replaced = True
            note = (
                f"the solution's process reported {reported:.4f} ms, but the judge saw "
                f"{self.judge_ms:.4f} ms per call: timed again on the judge's clock, the device "
                "synchronised before each call (the judge's figure is used)"
            )
        for _ in range(max(1, MIN_CHECKS - self.checks)):  # the last call is always checked
            self.one(index[0], True, isolate)
            index[0] += 1
        return timing, note

    def record(self) -> Dict[str, Any]:
        """What the defences did, for the report."""
        data = self.sets.record()
        data.update(
            {
                "calls": self.calls,
                "outputs_reset": self.calls,
                "checked": self.checks,
                "judge_ms": self.judge_ms,
                "reported_ms": self.reported_ms,
                "empty_call_ms": {
                    "stream": self.bounds[False].record(),
                    "isolated": self.bounds[True].record(),
                },
                "empty_call": self.empty_call,
                "l2_persisting_reset": self.l2_reset,
                "round_steps_ms": self.steps.record(),
                "replaced": self.replaced,
            }
        )
        return data

    def release(self) -> None:
        self.flush.release()
