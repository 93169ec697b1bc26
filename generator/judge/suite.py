"""Run a plan: correctness of every job in parallel workers, then timing one job at a time.

Correctness runs are independent processes, so several share the machine (and the GPU) safely;
timed runs never overlap anything else. A job is timed only when its correctness run passed.
Solutions are also judged on every extra seed (in the same worker, correctness only) and, on the
first seed, against the spec's float64 oracle and accuracy floor; mutants run every functional
case. `generator.judge.proofs` turns those rows into the spec-level proofs.
"""

from __future__ import annotations

import contextlib
import math
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

from generator.judge import verdicts as V
from generator.judge.cache import Cache
from generator.judge.journal import FUNCTIONAL, TIMED, Journal
from generator.judge.plan import Plan, PlanJob
from generator.judge.pool import serving
from generator.judge.runner import Job, judge
from generator.judge.toolchains import target_for
from generator.languages import BY_KEY


@dataclass
class SuiteOptions:
    device: str = "cpu"
    perf: bool = False
    jobs: int = 2
    timeout: float = 60.0
    memory_limit: Optional[int] = None  # bytes per solution; None: the judge's default
    seed: int = 0
    #: seeds every solution must also pass (correctness only; timing uses `seed`)
    extra_seeds: List[int] = field(default_factory=list)
    arch: Optional[str] = None  # overrides the CUDA/Mojo target
    perf_options: Dict[str, Any] = field(default_factory=dict)
    mojo_runtime: Optional[Path] = None
    progress: Optional[Callable[[Dict[str, Any], int, int], None]] = None
    #: time.time() after which no further job is timed (the rest are reported as not timed)
    deadline: Optional[float] = None
    #: the Triton interpreter's per-tensor limit on the CPU (None: the judge's default)
    cpu_max_elements: Optional[int] = None
    #: every case of a multi-GPU challenge on this many ranks instead of its own (--ranks)
    ranks: Optional[int] = None
    #: correctness runs on warm workers, torch imported once each (generator/judge/pool.py)
    warm: bool = False
    #: every job sent to this Ray cluster ("local": one started here; generator/judge/ray_pool.py)
    ray: Optional[str] = None
    #: where a local Ray cluster keeps its files (None: a temporary folder, removed after)
    ray_temp_dir: Optional[Path] = None
    #: time.time() after which no job starts at all, correctness runs included: the jobs left
    #: are reported not run, for a run resumed from the journal to take up
    stop_starting: Optional[float] = None
    #: each finished job's result, appended as it comes (generator/judge/journal.py); the jobs
    #: it holds already are not run again
    journal: Optional[Path] = None


def forced_ranks(pj: PlanJob, plan: Plan, options: SuiteOptions) -> Optional[int]:
    """--ranks N for the jobs of a multi-GPU challenge; None for the others."""
    return options.ranks if plan.challenges[pj.challenge].num_gpus > 1 else None


def expectation(pj: PlanJob, plan: Plan, options: SuiteOptions) -> str:
    """A mutant of a multi-GPU challenge judged on --ranks N may survive every case there (a
    mistake in a collective shows only on several ranks): it is then not provable, no failure. An
    entry held to a verdict when timed is held to its untimed one in a run without --perf."""
    if pj.kind == "mutant" and forced_ranks(pj, plan, options) is not None:
        return f"{pj.expect}|{V.NOT_PROVABLE}"
    if not options.perf and getattr(pj, "untimed_expect", None):
        return pj.untimed_expect  # an entry that attacks the timing, in a run that times nothing
    return pj.expect


def to_job(pj: PlanJob, plan: Plan, options: SuiteOptions, perf_phase: bool) -> Job:
    challenge = plan.challenges[pj.challenge]
    # --arch names the target of the natively built languages only
    arch = options.arch if BY_KEY[pj.language].native else None
    target = pj.target or target_for(pj.language, arch)
    solution = pj.kind in ("solution", "derived", "reference_jax") and not perf_phase
    mutant = pj.kind == "mutant" and not perf_phase
    reference = pj.kind == "reference" and not perf_phase
    derived = pj.kind == "derived" and not perf_phase
    # The floor needs the oracle in every solution's worker; otherwise one job per challenge
    # (`reference`) measures the reference against the oracle.
    floor = challenge.accuracy_floor if solution and challenge.oracle else None
    return Job(
        challenge_dir=Path(challenge.dir),
        source=Path(pj.source),
        language=pj.language,
        device=options.device,
        perf=perf_phase,
        functional=not perf_phase,
        timeout=pj.timeout or options.timeout,
        memory_limit=pj.memory_limit or options.memory_limit,
        seed=options.seed,
        target=target,
        artifact=Path(pj.artifact) if pj.artifact else None,
        prebuilt_build=pj.build,
        case_names=challenge.case_names or None,
        min_bytes=challenge.min_bytes,
        perf_options=options.perf_options,
        mojo_runtime=options.mojo_runtime,
        extra_seeds=list(options.extra_seeds) if solution else [],
        oracle=challenge.oracle if reference or floor else None,
        accuracy_floor=floor,
        mutant=mutant,
        reference=reference,
        derived=derived,
        variants=list(challenge.derived) if derived else [],
        cpu_max_elements=options.cpu_max_elements,
        ranks=forced_ranks(pj, plan, options),
        baseline=pj.kind == "baseline",
        build_only=pj.kind == "build",
        side_by_side=max(1, options.jobs),
    )


def gpus_needed(pj: PlanJob, plan: Plan, options: SuiteOptions) -> int:
    """The GPUs one job takes: a multi-GPU challenge's count (or --ranks), else one."""
    return forced_ranks(pj, plan, options) or max(1, plan.challenges[pj.challenge].num_gpus)


Runner = Callable[[PlanJob, Job], Dict[str, Any]]


@contextlib.contextmanager
def job_runner(plan: Plan, options: SuiteOptions, cache: Cache) -> Iterator[Tuple[Runner, int]]:
    """How each job is judged, and how many run at once: here (one worker per job, or warm
    workers), or on a Ray cluster."""
    if options.ray is None:
        with serving(options.warm):
            yield (lambda pj, job: judge(job, cache)), max(1, options.jobs)
        return
    from generator.judge.ray_pool import serving as ray_serving

    # --jobs: the CPUs of a cluster started here, and the correctness jobs that share a GPU
    with ray_serving(options.ray, options.jobs, options.ray_temp_dir, options.jobs) as pool:
        yield (lambda pj, job: pool.judge(job, cache, gpus_needed(pj, plan, options))), pool.slots


NOT_STARTED = "not started: the run stopped starting jobs (a resumed run takes it up)"


def stopped(options: SuiteOptions) -> bool:
    return options.stop_starting is not None and time.time() > options.stop_starting


def can_time(language: str, device: str) -> bool:
    adapter = BY_KEY[language]
    return device != "cpu" or (adapter.runs_on_cpu and not adapter.interpreted_on_cpu)


def run_plan(plan: Plan, options: SuiteOptions, cache: Cache) -> List[Dict[str, Any]]:
    selected = [pj for pj in plan.jobs if pj.functional or options.perf]
    first: Dict[str, Dict[str, Any]] = {}
    functional = [pj for pj in selected if pj.functional]
    total = len(functional) + sum(
        1 for pj in selected if options.perf and pj.perf and can_time(pj.language, options.device)
    )
    done = 0

    def report(pj: PlanJob, result: Dict[str, Any]) -> None:
        nonlocal done
        done += 1
        if options.progress:
            options.progress({"id": pj.id, **result}, done, total)

    journal = Journal(options.journal) if options.journal else None
    with job_runner(plan, options, cache) as (run, at_once):

        def correctness(pj: PlanJob) -> Dict[str, Any]:
            result = journal.get(pj.id, FUNCTIONAL) if journal else None
            if result is None:
                if stopped(options):
                    return {"verdict": V.NOT_RUN, "message": NOT_STARTED}
                result = run(pj, to_job(pj, plan, options, perf_phase=False))
                if journal:
                    journal.add(pj.id, FUNCTIONAL, result)
            report(pj, result)
            return result

        with ThreadPoolExecutor(max_workers=at_once) as pool:
            for pj, result in zip(functional, pool.map(correctness, functional)):
                first[pj.id] = result
        timed, untimed = timing_phase(selected, first, plan, options, run, report, journal)
    return [
        make_row(
            pj, first.get(pj.id), timed.get(pj.id), pj.id in untimed, expectation(pj, plan, options)
        )
        for pj in selected
    ]


def timing_phase(
    selected: List[PlanJob],
    first: Dict[str, Dict[str, Any]],
    plan: Plan,
    options: SuiteOptions,
    run: Runner,
    report: Callable[[PlanJob, Dict[str, Any]], None],
    journal: Optional[Journal] = None,
) -> Tuple[Dict[str, Dict[str, Any]], List[str]]:
    """The timed runs, one at a time, of the jobs whose correctness run passed."""
    timed: Dict[str, Dict[str, Any]] = {}
    untimed: List[str] = []
    if options.perf:
        # Optimized solutions first, then baselines, then the rest: if the deadline comes, what
        # matters most has been measured.
        for pj in sorted(selected, key=lambda j: j.priority):
            if not pj.perf or not can_time(pj.language, options.device):
                continue
            if pj.functional and first[pj.id]["verdict"] != V.PASS:
                continue
            resumed = journal.get(pj.id, TIMED) if journal else None
            if resumed is not None:
                timed[pj.id] = resumed
                report(pj, resumed)
                continue
            late = options.deadline is not None and time.time() > options.deadline
            if late or stopped(options):
                untimed.append(pj.id)
                continue
            timed[pj.id] = run(pj, to_job(pj, plan, options, perf_phase=True))
            if journal:
                journal.add(pj.id, TIMED, timed[pj.id])
            report(pj, timed[pj.id])
    return timed, untimed


def unsandboxed_exemption(pj: PlanJob, result: Dict[str, Any]) -> bool:
    """An attack only the sandbox stops (reading files) is not held against an unsandboxed run."""
    sandbox = str((result.get("env") or {}).get("sandbox", ""))
    return getattr(pj, "needs_sandbox", False) and sandbox.startswith("unsandboxed")


def make_row(
    pj: PlanJob,
    functional: Optional[Dict[str, Any]],
    timed: Optional[Dict[str, Any]],
    untimed: bool = False,
    expect: Optional[str] = None,
) -> Dict[str, Any]:
    """One report row; `untimed`: the job was to be timed, but the run's deadline had passed;
    `expect`: the plan's expectation as this run holds it (see `expectation`)."""
    expect = expect or pj.expect
    main = functional or timed or {"verdict": V.NOT_RUN, "message": ""}
    verdict, message = main["verdict"], main.get("message", "")
    if untimed:
        message = (message + "; " if message else "") + "not timed: the deadline had passed"
    if functional and timed and timed["verdict"] != V.PASS:
        verdict, message = timed["verdict"], f"performance case: {timed.get('message', '')}"
    cases = main.get("cases") or []
    passed = [c for c in cases if c.get("verdict") == V.PASS]
    seeds = (functional or {}).get("seeds") or []
    row = {
        "id": pj.id,
        "challenge": pj.challenge,
        "kind": pj.kind,
        "name": pj.name,
        "language": pj.language,
        "source": main.get("source", pj.source),
        "expect": expect,
        "verdict": verdict,
        "message": message,
        "ok": V.expectation_met(expect, verdict, message)
        or verdict == V.NOT_RUN
        or unsandboxed_exemption(pj, main),
        "cases": len(cases),
        "cases_passed": len(passed),
        "skipped": len(main.get("skipped") or []),
        #: the skipped cases, each {"name", "why"} (a tensor too large for the CPU interpreter)
        "skipped_cases": [s for s in main.get("skipped") or [] if isinstance(s, dict)],
        "seeds": [
            {k: s.get(k) for k in ("seed", "verdict", "passed", "skipped", "message")}
            for s in seeds
        ],
        # every case that was compared, a failing one too (its errors are the interesting ones)
        "max_abs": _worst_error(cases, "max_abs"),
        "max_rel": _worst_error(cases, "max_rel"),
        "exact": any(c.get("exact") for c in cases),
        "mismatches": sum(c.get("mismatches", 0) for c in cases),
        "seconds": round(
            (functional or {}).get("seconds", 0.0) + (timed or {}).get("seconds", 0.0), 3
        ),
        "cached": bool(main.get("cached")),
        "perf": (timed or {}).get("perf"),
        "env": (timed or functional or {}).get("env"),
        "detail": (timed if timed and timed["verdict"] != V.PASS else main).get("detail", ""),
        # the worker's per-case records: oracle deviations, floor errors, a mutant's catches
        "case_results": (functional or {}).get("cases") or [],
    }
    for name in ("audit", "variants"):  # the derived proofs' records (derived_worker.py)
        if (functional or {}).get(name) is not None:
            row[name] = functional[name]
    if V.is_unavailable(verdict, message):
        row["message"] = f"unavailable here: {message}"
    return row


def summary(rows: List[Dict[str, Any]], started: float) -> Dict[str, Any]:
    failed = [r["id"] for r in rows if not r["ok"]]
    return {
        "jobs": len(rows),
        "ok": len(rows) - len(failed),
        "failed": failed,
        "seconds": round(time.time() - started, 1),
    }


def _worst_error(cases: List[Dict[str, Any]], key: str) -> Any:
    """The largest error of the cases that have one ("nan" / "inf" as the worker writes them,
    a NaN the worst of all)."""
    found = [float(c[key]) for c in cases if key in c]
    if not found:
        return None
    largest = math.nan if any(math.isnan(v) for v in found) else max(found)
    return largest if math.isfinite(largest) else str(largest)
