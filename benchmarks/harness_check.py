"""Checks of the judge's timing harness, made beside a GPU judge run (benchmarks/gpu_judge.py).

    python benchmarks/harness_check.py crosscheck --prebuilt DIR --json FILE [--job ID ...]
    python benchmarks/harness_check.py dispatch --json FILE [--device cuda]
    python benchmarks/harness_check.py profile --prebuilt DIR --json FILE [--job ID ...]
    python benchmarks/harness_check.py baselines --prebuilt DIR --json FILE [--job ID ...]

`crosscheck` loads a bundled solution through its language's adapter, on its challenge's
performance case (seed 0, as the judge times it), and times the same call twice in one process:
with the judge's timing (generator.judge.timing.measure_rounds: each call as the judge's rounds
time it, after a flush and a synchronisation, behind a short busy wait that hides its launch) and
with triton.testing.do_bench. do_bench's own L2 flush zeroes a 256 MB buffer;
the judge's also reads another 256 MB so that no dirty line is written back during the timed call,
so do_bench is given the judge's flush (its `clear_cache` replaced for the call) and asked for the
median; do_bench with its own flush is recorded beside it. The two must agree within 5%.

`dispatch` times what a trivial jitted JAX call costs (`x + 0` and a `pallas_call` identity, on an
8x128 float32 array) three ways: (a) on an array JAX owns, `block_until_ready` in a tight loop
(JAX's own floor); (b) the same loop on torch buffers imported through DLPack, bound by the JAX
adapter; (c) exactly as the judge times a JAX solution (its rounds, the device synchronised
before each call). (c) is the floor under every JAX figure of the run; (c) less (a) is the
judge's part of it.

`profile` says where a solution's time goes: whether the judge isolates it (generator.judge.solver.
must_isolate: a language on streams of its own is, unless its work is seen ordered with the
current stream, for JAX on the tensors its returned arrays are exchanged into), its judge
median with and without isolation, the host time of one call, and its GPU kernels (names, calls,
microseconds per solve) from torch.profiler, whose CUDA activity trace sees every kernel of the
process, Mojo's and XLA's included. Median minus kernel time is what launching and waiting cost.

`baselines` does the same for the strongest baselines of 142 and 143 (BASELINE_JOBS), each in
its library's own calling form as the judge calls it (generator/judge/baseline.py: its `prepare`
first, then a `solve` that returns its outputs): its outputs are checked against the reference
once, outside the clock, then the same call is timed by the judge's rounds and by do_bench.

Each writes its result as JSON, an entry per measurement, `{"error": ...}` for one that failed.
gpu_judge.py runs each in a child process of its own, so that nothing here can stop its run.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.results_files import AGREEMENT  # noqa: E402

# The tiny array the dispatch floor is measured on: that of JAX's least call, which the judge's
# empty calls make.
from generator.languages.jax import TRIVIAL_SHAPE as DISPATCH_SHAPE  # noqa: E402

#: The solutions whose judge time is cross-checked: the optimized CUDA ones of 142 and 143.
CROSSCHECK_JOBS = (
    "142_rms_norm_backward/solution/optimized/cuda",
    "143_row_inverse_rms/solution/optimized/cuda",
)
#: The baselines timed by do_bench too: the strongest of each challenge.
BASELINE_JOBS = (
    "142_rms_norm_backward/baseline/quack_rmsnorm_bwd_rstd_precomputed/pytorch",
    "142_rms_norm_backward/baseline/liger_kernel_rms_norm_backward_rstd_precomputed/pytorch",
    "143_row_inverse_rms/baseline/torch_compile_of_x_float_square_mean_1_writing_in_place/pytorch",
)
#: The solutions profiled by default: those that run on streams of their own, and CUDA beside them.
PROFILE_JOBS = tuple(
    f"{challenge}/solution/optimized/{language}"
    for challenge in ("142_rms_norm_backward", "143_row_inverse_rms")
    for language in ("mojo", "jax", "cuda")
)
#: Solves per profiled trace.
PROFILE_CALLS = 20
JUDGE_FLUSH = "the judge's (write 256 MB, then read 256 MB)"
DO_BENCH_FLUSH = "do_bench's own (zero 256 MB)"

ADD_SOURCE = """\
import jax


@jax.jit
def solve(x):
    return x + 0
"""

PALLAS_SOURCE = """\
import jax
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as plt


def _copy(x_ref, o_ref):
    o_ref[...] = x_ref[...]


@jax.jit
def solve(x):
    mode = (
        {"interpret": True}
        if jax.default_backend() == "cpu"
        else {"compiler_params": plt.CompilerParams(num_warps=4, num_stages=2)}
    )
    return pl.pallas_call(_copy, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), **mode)(x)
"""


class FlushNotReplaced(RuntimeError):
    """do_bench did not flush through the driver's `clear_cache`, so it kept its own flush."""


def _one_line(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}".strip()
    return (text.splitlines() or [type(exc).__name__])[0][:300]


def perf_options(budget_s: float) -> Any:
    """The judge's options for a timed job, without the copy-bandwidth measurement (as in the
    solution's process)."""
    from generator.judge.timing import PerfOptions

    options = PerfOptions(budget_s=budget_s)
    options.copy_bytes = 0
    return options


def judge_timing(run: Callable[[], Any], device: str, options: Any, isolate: bool) -> Any:
    """The judge's measurement of one bound call, as its rounds make it (in one process here)."""
    from generator.judge.timing import measure_rounds

    return measure_rounds(run, device, options, isolate)


def do_bench_median(run: Callable[[], Any], judge_flush: bool) -> float:
    """triton.testing.do_bench's median; with `judge_flush`, its L2 flush is the judge's."""
    import triton
    import triton.testing

    from generator.judge.timing import Flush, PerfOptions

    if not judge_flush:
        return float(triton.testing.do_bench(run, return_mode="median"))
    driver = triton.runtime.driver.active
    flush = Flush("cuda", PerfOptions().flush_bytes)
    used = []

    def clear_cache(_cache: Any) -> None:
        used.append(1)
        flush()

    driver.clear_cache = clear_cache  # an instance attribute shadows the driver's method
    try:
        median = float(triton.testing.do_bench(run, return_mode="median"))
    finally:
        del driver.clear_cache
        flush.release()
    if not used:
        raise FlushNotReplaced("this Triton's do_bench does not flush through clear_cache")
    return median


@dataclass
class CaseCall:
    """A plan job's solution bound to its challenge's performance case."""

    name: str
    bound: Any
    language: Any  # its adapter (generator.languages)
    params: List[Any]
    values: Dict[str, Any]
    solve: Any = None  # what the adapter loaded (for JAX: a JaxSolve, rebound per exchange)


def load_bound(pj: Any, challenge_dir: Path, device: str, cache: Any) -> tuple:
    """(name, bound call, isolated) of a plan job's solution (see load_case_call)."""
    call = load_case_call(pj, challenge_dir, device, cache)
    return call.name, call.bound, call.language.own_streams


def load_case_call(pj: Any, challenge_dir: Path, device: str, cache: Any) -> CaseCall:
    """A plan job's solution on its challenge's performance case (seed 0), loaded by its
    language's adapter as the solution's process loads it."""
    from generator.judge.cases import performance
    from generator.judge.challenge import load_challenge
    from generator.judge.runner import build
    from generator.judge.signature import params_from_signature
    from generator.languages import BY_KEY

    adapter = BY_KEY[pj.language]
    challenge = load_challenge(challenge_dir, device)
    params = params_from_signature(challenge.get_solve_signature())
    if any(p.is_tensor and p.direction == "inout" for p in params):
        raise ValueError("inout tensors: do_bench cannot restore them outside the timed call")
    artifact = Path(pj.artifact) if pj.artifact else None
    if artifact is None:
        outcome = build(pj.language, Path(pj.source), pj.target, cache)
        if not outcome.ok:
            raise RuntimeError(f"build failed: {outcome.message}")
        artifact = outcome.artifact
    adapter.prepare_worker()
    case = performance(challenge, params, 0)
    solve = adapter.load(artifact, params)
    bound = solve.bind(params, case.values)
    return CaseCall(f"{adapter.title} {pj.name}", bound, adapter, params, case.values, solve)


def crosscheck_one(
    pj: Any,
    challenge_dir: Path,
    device: str,
    cache: Any,
    budget_s: float,
    bench: Callable[[Callable[[], Any], bool], float] = do_bench_median,
) -> Dict[str, Any]:
    """The judge's and do_bench's medians of one solution, their ratio, and whether they agree."""
    name, bound, isolate = load_bound(pj, challenge_dir, device, cache)
    bound.run()  # compiles or loads whatever the first call needs, outside both measurements
    bound.finish()
    timing = judge_timing(bound.run, device, perf_options(budget_s), isolate)
    own_flush_ms = bench(bound.run, False)
    try:
        do_bench_ms, flush = bench(bound.run, True), JUDGE_FLUSH
    except FlushNotReplaced:  # another Triton: compare with do_bench as it is, and say so
        do_bench_ms, flush = own_flush_ms, DO_BENCH_FLUSH
    ratio = timing.median_ms / do_bench_ms
    return {
        "name": name,
        "judge_ms": timing.median_ms,
        "do_bench_ms": do_bench_ms,
        "ratio": ratio,
        "agree": abs(ratio - 1.0) <= AGREEMENT,
        "flush": flush,
        "do_bench_own_flush_ms": own_flush_ms,
        "judge_reps": timing.reps,
        "job": pj.id,
    }


def baseline_one(
    pj: Any,
    challenge_dir: Path,
    device: str,
    cache: Any,
    budget_s: float,
    bench: Callable[[Callable[[], Any], bool], float] = do_bench_median,
) -> Dict[str, Any]:
    """One baseline in its own calling form: its outputs against the reference (outside the
    clock), then the judge's and do_bench's medians of the same call."""
    from generator.judge.baseline import BaselineSolve
    from generator.judge.cases import performance
    from generator.judge.challenge import load_challenge
    from generator.judge.compare import compare_output
    from generator.judge.signature import params_from_signature

    challenge = load_challenge(challenge_dir, device)
    params = params_from_signature(challenge.get_solve_signature())
    case = performance(challenge, params, 0)
    baseline = BaselineSolve.load(Path(pj.artifact or pj.source))
    baseline.prepare_call(params, case.values)
    bound = baseline.bind(params, case.values)
    bound.run()  # compiles whatever the first call needs, outside both measurements
    bound.finish()  # its returned outputs onto the case's tensors
    copies = {k: v.clone() if hasattr(v, "clone") else v for k, v in case.values.items()}
    challenge.reference_impl(**copies)
    atol, rtol = float(challenge.atol), float(challenge.rtol)
    outputs = [p.name for p in params if p.is_tensor and p.direction != "in"]
    compared = [compare_output(n, case.values[n], copies[n], atol, rtol) for n in outputs]
    timing = judge_timing(bound.run, device, perf_options(budget_s), False)
    try:
        do_bench_ms, flush = bench(bound.run, True), JUDGE_FLUSH
    except FlushNotReplaced:
        do_bench_ms, flush = bench(bound.run, False), DO_BENCH_FLUSH
    ratio = timing.median_ms / do_bench_ms
    return {
        "name": pj.name,
        "job": pj.id,
        "outputs_ok": all(c.ok for c in compared),
        "outputs": "; ".join(c.describe() for c in compared),
        "judge_ms": timing.median_ms,
        "do_bench_ms": do_bench_ms,
        "ratio": ratio,
        "agree": abs(ratio - 1.0) <= AGREEMENT,
        "flush": flush,
    }


def baselines(
    prebuilt: Path, job_ids: Sequence[str], device: str, budget_s: float
) -> Dict[str, Any]:
    """An entry per baseline job id, `{"error"}` where it failed (e.g. its library is missing)."""
    from generator.judge.bundle import load_bundle
    from generator.judge.cache import Cache

    cache = Cache()
    plan, _ = load_bundle(prebuilt, cache)
    jobs = {pj.id: pj for pj in plan.jobs}
    found: Dict[str, Any] = {}
    for job_id in job_ids:
        pj = jobs.get(job_id)
        if pj is None:
            found[job_id] = {"job": job_id, "error": "not in the bundle"}
            continue
        challenge_dir = Path(plan.challenges[job_id.split("/")[0]].dir)
        try:
            found[job_id] = baseline_one(pj, challenge_dir, device, cache, budget_s)
        except Exception as exc:  # reported, and the next baseline is still measured
            found[job_id] = {"job": job_id, "name": pj.name, "error": _one_line(exc)}
    return found


def use_mojo_runtime(runtime: Optional[Path]) -> None:
    """The bundle's Mojo runtime libraries, for Mojo solutions loaded in this process (as the
    judge's workers are told)."""
    if runtime is not None:
        os.environ["CHGEN_MOJO_RUNTIME"] = str(runtime)


def crosscheck(
    prebuilt: Path, job_ids: Sequence[str], device: str, budget_s: float
) -> Dict[str, Any]:
    """An entry per challenge of `job_ids` (by the challenge's key), `{"error"}` where it failed."""
    from generator.judge.bundle import load_bundle
    from generator.judge.cache import Cache

    cache = Cache()  # the judge run's own (gpu_judge.py runs this from the repository root)
    plan, runtime = load_bundle(prebuilt, cache)
    use_mojo_runtime(runtime)
    jobs = {pj.id: pj for pj in plan.jobs}
    found: Dict[str, Any] = {}
    for job_id in job_ids:
        key = job_id.split("/")[0]
        pj = jobs.get(job_id)
        if pj is None:
            found[key] = {"job": job_id, "error": "not in the bundle"}
            continue
        try:
            entry = crosscheck_one(pj, Path(plan.challenges[key].dir), device, cache, budget_s)
        except Exception as exc:  # reported, and the next solution is still measured
            entry = {"job": job_id, "error": _one_line(exc)}
        found[key] = entry
    return found


def kernels_per_call(run: Callable[[], Any], calls: int = PROFILE_CALLS) -> Dict[str, Any]:
    """The GPU activity of `calls` solves (back to back, then a synchronisation) by torch.profiler:
    each kernel's name, launches and microseconds per solve, and their sum."""
    import torch
    from torch.profiler import ProfilerActivity, profile

    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as trace:
        for _ in range(calls):
            run()
        torch.cuda.synchronize()
    kernels = []
    for event in trace.key_averages():
        device_us = float(getattr(event, "device_time_total", 0.0) or 0.0)
        if device_us <= 0:
            continue
        kernels.append(
            {"name": event.key[:120], "launches": int(event.count) / calls,
             "us_per_solve": device_us / calls}  # fmt: skip
        )
    kernels.sort(key=lambda k: -k["us_per_solve"])
    return {"kernels": kernels, "kernel_ms": sum(k["us_per_solve"] for k in kernels) / 1e3}


def host_call_ms(run: Callable[[], Any], reps: int = 50) -> float:
    """Median host time of one call alone (a GPU synchronised before it, not after)."""
    import statistics
    import time

    import torch

    def sync() -> None:
        if torch.cuda.is_initialized():
            torch.cuda.synchronize()

    times = []
    for _ in range(reps):
        sync()
        started = time.perf_counter()
        run()
        times.append((time.perf_counter() - started) * 1e3)
    sync()
    return statistics.median(times)


def profile_one(
    pj: Any, challenge_dir: Path, device: str, cache: Any, budget_s: float
) -> Dict[str, Any]:
    """Where one solution's time goes (the module's docstring)."""
    from generator.judge.solver import must_isolate

    call = load_case_call(pj, challenge_dir, device, cache)
    run = call.bound.run
    run()
    call.bound.finish()
    isolate = must_isolate(call.language, call.bound, call.params, call.values, device, None)
    options = perf_options(budget_s)
    # Not isolated: seen ordered (or on the current stream by construction).
    entry: Dict[str, Any] = {"name": call.name, "job": pj.id, "stream_ordered": not isolate}
    entry["isolated_by_judge"] = isolate
    # behind its language's cover, what it returned let go of before each call: as judged
    rounds = partial(measure_rounds_of, call.bound, device, options, language=call.language)
    entry["judge_ms"] = rounds(isolate=isolate).median_ms
    if not isolate:
        entry["isolated_ms"] = rounds(isolate=True).median_ms
    entry["host_call_ms"] = host_call_ms(run)
    if device.startswith("cuda"):
        entry["round_split"] = round_split(call.bound, call.language, device, isolate)
    entry.update(kernels_per_call(run))
    entry["overhead_ms"] = entry["judge_ms"] - entry["kernel_ms"]
    if getattr(call.bound, "exchange", None) is not None:
        entry.update(per_call_figures(call, device, options))
    return entry


#: Rounds per kind (timed, empty) of `round_split`.
SPLIT_ROUNDS = 200


def round_split(bound: Any, language: Any, device: str, isolate: bool) -> Dict[str, Any]:
    """One timed round as the solution's process makes it (generator/judge/timing.CallClock:
    the stream held busy by the language's cover, or the device synchronised, the call between
    two events, then the device synchronised), with the worker's flush and synchronisation
    before each, timed calls and empty calls in turn: the median host milliseconds from the
    round's start to the call's return, to its end event, and to the device synchronised, for
    each kind, and the events' figure. Timed less empty is the judge's clock bound as one
    process sees it, without the round trip to the worker; the end event's figure against the
    device's says whether the synchronisation waits for more than the call's ordered work."""
    import statistics
    import time

    import torch

    from generator.judge.timing import LAUNCH_COVER_CYCLES, Flush

    cover = language.launch_cover_cycles or LAUNCH_COVER_CYCLES
    flush = Flush(device, 256 * 1024 * 1024)
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    found: Dict[str, Dict[str, List[float]]] = {"timed": {}, "empty": {}}

    def one(fn: Callable[[], Any]) -> Dict[str, float]:
        flush()
        torch.cuda.synchronize()
        begun = time.perf_counter()
        if isolate:
            torch.cuda.synchronize()
        else:
            torch.cuda._sleep(cover)
        start.record()
        fn()
        returned = time.perf_counter()
        end.record()
        end.synchronize()
        at_event = time.perf_counter()
        torch.cuda.synchronize()
        synced = time.perf_counter()
        return {
            "returned": (returned - begun) * 1e3,
            "end_event": (at_event - begun) * 1e3,
            "device_sync": (synced - begun) * 1e3,
            "events": start.elapsed_time(end),
        }

    try:
        for index in range(SPLIT_ROUNDS):
            for kind, fn in (("timed", bound.run), ("empty", _nothing)):
                if bound.prepare is not None:
                    bound.prepare()
                figures = one(fn)
                if index >= 5:
                    for name, value in figures.items():
                        found[kind].setdefault(name, []).append(value)
    finally:
        flush.release()
    medians = {
        kind: {name: round(statistics.median(v), 4) for name, v in parts.items()}
        for kind, parts in found.items()
    }
    timed, empty = medians["timed"], medians["empty"]
    medians["timed_less_empty"] = {
        name: round(timed[name] - empty[name], 4) for name in ("end_event", "device_sync")
    }
    medians["isolated"] = isolate
    return medians


def _nothing() -> None:
    return None


def per_call_figures(call: CaseCall, device: str, options: Any) -> Dict[str, Any]:
    """A JAX solution's binding (`exchange`) and, on a GPU, the judge's median, stream order and
    host time of one call with the per-call exchange (the former binding), beside it."""
    from generator.judge.solver import must_isolate
    from generator.toolchain.bindings import PER_CALL, JaxSolve

    found: Dict[str, Any] = {"exchange": call.bound.exchange}
    if not device.startswith("cuda"):
        return found
    bound = JaxSolve(call.solve.fn, PER_CALL).bind(call.params, call.values)
    bound.run()
    bound.finish()
    isolate = must_isolate(call.language, bound, call.params, call.values, device, None)
    found["per_call_stream_ordered"] = not isolate
    found["per_call_judge_ms"] = measure_rounds_of(bound, device, options, isolate).median_ms
    found["per_call_host_call_ms"] = host_call_ms(bound.run)
    return found


def profile(prebuilt: Path, job_ids: Sequence[str], device: str, budget_s: float) -> Dict[str, Any]:
    """An entry per job id, `{"error"}` where it failed."""
    from generator.judge.bundle import load_bundle
    from generator.judge.cache import Cache

    cache = Cache()
    plan, runtime = load_bundle(prebuilt, cache)
    use_mojo_runtime(runtime)
    jobs = {pj.id: pj for pj in plan.jobs}
    found: Dict[str, Any] = {}
    for job_id in job_ids:
        pj = jobs.get(job_id)
        if pj is None:
            found[job_id] = {"job": job_id, "error": "not in the bundle"}
            continue
        challenge_dir = Path(plan.challenges[job_id.split("/")[0]].dir)
        try:
            found[job_id] = profile_one(pj, challenge_dir, device, cache, budget_s)
        except Exception as exc:  # reported, and the next solution is still profiled
            found[job_id] = {"job": job_id, "error": _one_line(exc)}
    return found


#: Calls per tight loop of the dispatch floor's (a) and (b).
LOOP_CALLS = 200


def loop_ms(run: Callable[[], Any], calls: int = LOOP_CALLS) -> float:
    """Host milliseconds per call of `run` (which waits for its result) in a tight loop, after a
    few calls to warm up: nothing between two calls but the loop."""
    import time

    for _ in range(5):
        run()
    started = time.perf_counter()
    for _ in range(calls):
        run()
    return (time.perf_counter() - started) * 1e3 / calls


def _waited(run: Callable[[], Any], device: str) -> None:
    """`run`, then the device synchronised (a bound JAX call on a GPU returns before its work is
    done, ordered with the stream)."""
    import torch

    run()
    if device.startswith("cuda"):
        torch.cuda.synchronize()


def jax_loop_ms(path: Path) -> float:
    """(a) the file's jitted solve on an array JAX made itself, `block_until_ready` each call."""
    import jax
    import jax.numpy as jnp

    from generator.toolchain.bindings import import_file, solve_of

    solve = solve_of(import_file(path), path)
    x = jax.device_put(jnp.ones(DISPATCH_SHAPE, jnp.float32))
    return loop_ms(lambda: jax.block_until_ready(solve(x)))


def dispatch_floor(device: str, budget_s: float, folder: Optional[Path] = None) -> Dict[str, Any]:
    """A jitted `x + 0` and a pallas_call identity, each measured three ways in one process:
    (a) `{key}_jax_loop_ms`, on an array JAX owns, `block_until_ready` in a tight loop: what JAX
    itself costs; (b) `{key}_dlpack_loop_ms`, the same loop on torch buffers imported through
    DLPack, bound by the JAX adapter as the judge binds a solution, waited for each call; (c)
    `{key}_ms`, that bound call timed as the judge times a JAX solution (its rounds: ordered with
    the stream and behind its cover where `{key}_stream_ordered`, else isolated).
    `{key}_harness_ms` is (c) less (a): what the judge adds (negative: the judge times the device
    work and not JAX's dispatch, as it does not time a CUDA launch); `{key}_isolated_ms` is (c)
    isolated; `{key}_host_call_ms` the host time of one bound call (what the stream's cover must
    hide). `{key}_exchange` says how the adapter bound the buffers (`bound`: imported once, JAX's
    compute stream made to wait at each call; `per_call`: imported and exported at each call);
    the `{key}_per_call_*` figures are (b), (c) and the host time with the per-call exchange, the
    former binding, measured beside it."""
    import torch

    from generator.languages import BY_KEY
    from generator.languages.base import SigParam
    from generator.toolchain.bindings import PER_CALL, JaxSolve, import_file, solve_of

    adapter = BY_KEY["jax"]
    params = [SigParam.make("x", "float32", "in", True), SigParam.make("y", "float32", "out", True)]
    values = {
        "x": torch.ones(DISPATCH_SHAPE, dtype=torch.float32, device=device),
        "y": torch.empty(DISPATCH_SHAPE, dtype=torch.float32, device=device),
    }
    found: Dict[str, Any] = {"shape": list(DISPATCH_SHAPE), "isolated": adapter.own_streams}
    with tempfile.TemporaryDirectory(dir=folder) as tmp:
        for key, source in (("add", ADD_SOURCE), ("pallas_identity", PALLAS_SOURCE)):
            path = Path(tmp) / f"{key}{adapter.suffix}"
            path.write_text(source)
            try:
                adapter.prepare_worker()
                bound = adapter.load(adapter.build(path, Path(tmp), None), params).bind(
                    params, values
                )
                found[f"{key}_exchange"] = bound.exchange
                found[f"{key}_jax_loop_ms"] = jax_loop_ms(path)
                figures, found["clock"] = _floor_of(key, adapter, bound, values, device, budget_s)
                found.update(figures)
                found[f"{key}_harness_ms"] = found[f"{key}_ms"] - found[f"{key}_jax_loop_ms"]
                # as it was timed before the buffers were exchanged on the stream: isolated
                isolated = measure_rounds_of(bound, device, perf_options(budget_s), True)
                found[f"{key}_isolated_ms"] = isolated.median_ms
                if device.startswith("cuda"):  # the former binding, beside it
                    per_call = JaxSolve(solve_of(import_file(path), path), PER_CALL)
                    again = per_call.bind(params, values)
                    figures, _ = _floor_of(key, adapter, again, values, device, budget_s)
                    found.update(
                        {k.replace(key, f"{key}_per_call", 1): v for k, v in figures.items()}
                    )
            except Exception as exc:  # the other call is still measured
                found[f"{key}_ms"] = None
                found[f"{key}_error"] = _one_line(exc)
    return found


def _floor_of(
    key: str, adapter: Any, bound: Any, values: Dict[str, Any], device: str, budget_s: float
) -> tuple:
    """(b), (c), stream order and host time of one bound trivial call (dispatch_floor), and the
    clock (c) was read on."""
    import torch

    from generator.judge.solver import must_isolate
    from generator.languages.base import SigParam

    params = [SigParam.make("x", "float32", "in", True), SigParam.make("y", "float32", "out", True)]

    bound.run()
    bound.finish()
    if not torch.equal(values["y"], values["x"]):
        raise RuntimeError("the call did not return its input")
    found: Dict[str, Any] = {f"{key}_dlpack_loop_ms": loop_ms(partial(_waited, bound.run, device))}
    # as the judge times it: ordered with the stream where must_isolate sees so
    isolate = must_isolate(adapter, bound, params, values, device, None)
    found[f"{key}_stream_ordered"] = not isolate
    timing = measure_rounds_of(bound, device, perf_options(budget_s), isolate)
    found[f"{key}_ms"] = timing.median_ms
    found[f"{key}_host_call_ms"] = host_call_ms(bound.run)
    return found, timing.clock


def measure_rounds_of(
    bound: Any, device: str, options: Any, isolate: bool = True, language: Any = None
) -> Any:
    """The bound call as the judge's rounds time it: what the last call returned let go of
    before each call, off the clock, as the solution's process does, behind the stream's cover
    of its language (JAX's by default: (c) of the dispatch floor)."""
    from generator.judge.timing import LAUNCH_COVER_CYCLES, measure_rounds
    from generator.languages import BY_KEY

    cover = (language or BY_KEY["jax"]).launch_cover_cycles or LAUNCH_COVER_CYCLES
    return measure_rounds(
        bound.run, device, options, isolate, prepare=bound.prepare, cover_cycles=cover
    )


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    steps = parser.add_subparsers(dest="step", required=True)
    cross = steps.add_parser("crosscheck", help="judge vs triton.testing.do_bench")
    cross.add_argument("--prebuilt", type=Path, required=True)
    cross.add_argument("--job", action="append", help="plan job ids (default: 142/143 CUDA)")
    dispatch = steps.add_parser("dispatch", help="the cost of a trivial jitted JAX call")
    where = steps.add_parser("profile", help="stream order, kernels and overhead per solution")
    where.add_argument("--prebuilt", type=Path, required=True)
    where.add_argument("--job", action="append", help="plan job ids (default: PROFILE_JOBS)")
    strongest = steps.add_parser("baselines", help="the strongest baselines vs do_bench")
    strongest.add_argument("--prebuilt", type=Path, required=True)
    strongest.add_argument("--job", action="append", help="plan job ids (default: BASELINE_JOBS)")
    for step in (cross, dispatch, where, strongest):
        step.add_argument("--json", type=Path, required=True, help="where the result goes")
        step.add_argument("--device", default="cuda")
        step.add_argument("--budget", type=float, default=2.0, help="the judge's per-job budget")
    args = parser.parse_args(argv)
    if args.step == "crosscheck":
        found = crosscheck(args.prebuilt, args.job or CROSSCHECK_JOBS, args.device, args.budget)
    elif args.step == "profile":
        found = profile(args.prebuilt, args.job or PROFILE_JOBS, args.device, args.budget)
    elif args.step == "baselines":
        found = baselines(args.prebuilt, args.job or BASELINE_JOBS, args.device, args.budget)
    else:
        found = dispatch_floor(args.device, args.budget)
    args.json.write_text(json.dumps(found, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
