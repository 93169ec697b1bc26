"""The GPU judge run: build everything on a machine with the toolchains, run it all on a GPU.

Step 1, on the build machine (nvcc, mojo, CuTe DSL, pydantic), from the repository root:

    python benchmarks/gpu_judge.py build --out build/gpu-bundle

It builds, for sm_90 (CuTe: sm_90a), every starter and solution of every spec, the spec's
baselines and mutants, the hostile catalogue (tests/judge/hostile) and a public-style tree
fixture, into one folder with the Mojo runtime; it prints the folder's size.
`--spec 142 --spec 143` builds only those (a multi-GPU challenge, whose cases need
several GPUs, can be left out for a one-GPU machine, or run there with `run --ranks 1`).

Step 2, on the GPU machine (torch, triton, jax; no mojo, no pydantic needed; the CuTe DSL
installed into a folder named by CHGEN_CUTE_SITE; Liger-Kernel, for its baseline, importable
through PYTHONPATH, which the workers inherit; TileLang and its needs likewise), from the
repository root, after installing the checkout itself (offline, no dependencies: it registers
the package data, the templates, whose bytes key the judge's cache):

    python -m pip install --no-deps --no-build-isolation --no-index -e .
    CHGEN_CUTE_SITE=/path/to/cute-site PYTHONPATH=/path/to/liger-site:/path/to/tilelang-site \
        python benchmarks/gpu_judge.py run --prebuilt build/gpu-bundle

It runs every job: correctness in parallel workers (every solution on seeds 0-4, the mutants on
every functional case, the reference against the float64 oracle, the accuracy floor, the hostile
catalogue), then the timed performance cases of solutions, baselines and the catalogue's timing
family one at a time (seed 0). It writes judge.json, judge.md, nvidia-smi.txt and run.log into
$OUT (or --out); `--results DIR` also writes the results files there, which `python
benchmarks/results_files.py judge.json` makes from the report afterwards anyway. `--ranks N` runs
every case of a multi-GPU challenge on N ranks (GPUs 0..N-1) instead of its own, as `chgen test
--ranks N` does (its mutants may then be not provable). `--only PATTERN` (repeated) judges only
the jobs whose id matches the shell pattern; `--first PATTERN` (repeated) times those jobs before
all others; `--timed-only` runs no functional cases for a timed job (its checked timed calls still
judge its outputs), for a run short of GPU time. A run longer than a call of a lent machine is
split over calls: `--state DIR` (a folder kept between them) holds the journal of finished jobs,
each call's start and the first call's harness checks, `--stop-after S` starts no job after S
seconds; each call given the same DIR takes up what is left and writes the whole report again,
with every call's seconds (`meta.calls`). Exit 0 when every job ended as expected, every
spec-level proof held and no cheat of the timing family was timed faster than the honest entry by
more than 10%. About 1.5 minutes of correctness, then timing until the deadline: the whole run
stays within about 7 minutes.

On a GPU with the timed runs, checks of the timing harness come first (`--checks` picks some, or
none), on a quiet device, each in a child process (benchmarks/harness_check.py; a failure there is
an error entry, never the end of the run), and their seconds come off the deadline: the optimized
CUDA solutions of 142 and 143 timed as the judge's rounds time them and by triton.testing.do_bench
(with the judge's L2 flush), which must agree within 5%; the JAX dispatch floor (a jitted `x + 0`
and a `pallas_call` identity on a tiny array, timed as the judge times a JAX solution); the profile
of the solutions on streams of their own; and the strongest baselines in their own calling form,
their outputs checked, against do_bench. They go into judge.json's meta (`crosscheck`, by
challenge, with the judge run's own median of that solution beside them, `baseline_crosscheck`,
`dispatch_floor`, `profile`), judge.md and the results files; a line says whether the two timings
agree. judge.md then gets the timing family (`timing_family` in the meta: each cheat caught, or its
median against the honest entry's) and the timing defences of every timed job.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

#: --stop-after counts from here: loading the bundle is part of a call's time
STARTED = time.monotonic()
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from generator.judge.cache import Cache  # noqa: E402
from generator.judge.plan import PlanChallenge, PlanJob, jobs_from_catalogue  # noqa: E402

CATALOGUE = ROOT / "tests" / "judge" / "hostile" / "catalogue.yaml"
FIXTURE = ROOT / "tests" / "judge" / "fixtures" / "tree" / "challenges" / "easy" / "9001_scaled_add"
#: Per timed job: converge to 1% or stop after this many seconds of repetitions.
PERF_BUDGET_S = 2.0
#: No timed job starts after this many seconds, so that the run ends within about 7 minutes
#: (optimized solutions are timed first, then the baselines, then the naive solutions).
DEADLINE_S = 360.0
#: Every solution must pass every case for each of these seeds (the first is also timed).
SEEDS = "0,1,2,3,4"
HARNESS = ROOT / "benchmarks" / "harness_check.py"
#: Each harness check (a child process: start-up, compilation, timing) ends within this; the
#: profile times six solutions twice each and traces them.
HARNESS_TIMEOUT_S = 90.0
PROFILE_TIMEOUT_S = 180.0
#: the strongest baselines compile on their first call (torch.compile, quack's CuTe kernels)
BASELINES_TIMEOUT_S = 240.0
#: The harness checks, in the order they run (`run --checks` picks some, or none).
CHECKS = ("crosscheck", "dispatch", "profile", "baselines")
#: A timing-family cheat that passes must not be faster than the honest entry by more than this.
TIMING_FAMILY_GAIN = 0.10


def build(out: Path, jobs: int, only: List[str]) -> int:
    from generator.judge.plan import PlanError, plan_from_specs, resolve_specs
    from generator.spec import SpecErrors

    cache = Cache(ROOT / ".chgen-cache")
    try:
        specs = resolve_specs(only, ROOT / "specs")
        plan = plan_from_specs(specs, ROOT / "generated", ROOT / "solutions", cache.root / "plan")
    except (PlanError, SpecErrors) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    # the hostile catalogue judges one challenge's tree: only when --spec kept that challenge
    hostile = jobs_from_catalogue(CATALOGUE, "cuda", timed=True)
    plan.jobs += [job for job in hostile if job.challenge in plan.challenges]
    plan.challenges[FIXTURE.name] = PlanChallenge(FIXTURE.name, str(FIXTURE))
    for suffix, language in ((".pytorch.py", "pytorch"), (".cu", "cuda"), (".jax.py", "jax")):
        source = FIXTURE / "solutions" / f"solution{suffix}"
        plan.jobs.append(
            PlanJob(
                id=f"{FIXTURE.name}/solution/fixture/{language}",
                challenge=FIXTURE.name,
                kind="solution",
                name="public-style tree",
                language=language,
                source=str(source),
                expect="pass",
            )
        )

    def progress(job, done, total):
        state = "ok" if (job.build or {}).get("ok") else "build failed"
        print(f"[{done}/{total}] {job.id}: {state}", file=sys.stderr, flush=True)

    return write_bundle(plan, out, cache, jobs, "gpu_judge.py", progress)


def write_bundle(plan, out: Path, cache, jobs: int, script: str, progress=None) -> int:
    """Build `plan` into the bundle `out` for sm_90, name every build that failed unexpectedly
    and say how to run it (`python benchmarks/SCRIPT run --prebuilt OUT`); the exit status."""
    from generator.judge.bundle import BundleError, build_bundle

    try:
        bundle, size = build_bundle(plan, out, cache, "sm_90", jobs, progress)
    except BundleError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    unexpected = [
        j.id for j in bundle.jobs if not (j.build or {}).get("ok") and j.expect != "build_error"
    ]
    for job_id in unexpected:
        print(f"build failed: {job_id}", file=sys.stderr)
    shown = out.relative_to(ROOT) if out.is_relative_to(ROOT) else out
    print(f"{shown}: {len(bundle.jobs)} jobs, {size / 1e6:.1f} MB; carry it, then run there:")
    print(f"  python benchmarks/{script} run --prebuilt {shown}")
    return 1 if unexpected else 0


def run_check(command: List[str], result: Path, timeout: float, log: Any) -> Dict[str, Any]:
    """Run one harness check in a child process; its JSON result, or `{"error"}` saying why
    there is none (it failed, crashed or ran past `timeout`)."""
    result.unlink(missing_ok=True)
    inherited = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT)] + inherited))
    # As in the judge's workers: JAX and torch share the GPU.
    env["XLA_PYTHON_CLIENT_PREALLOCATE"] = "false"
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=timeout, env=env, cwd=ROOT
        )
    except subprocess.TimeoutExpired:
        return {"error": f"did not finish within {timeout:.0f} s"}
    except OSError as exc:
        return {"error": f"could not start: {exc}"}
    log.write(done.stdout + done.stderr)
    if done.returncode != 0 or not result.is_file():
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return {"error": f"exit status {done.returncode}: {last[:300]}"}
    try:
        return json.loads(result.read_text())
    except ValueError as exc:
        return {"error": f"unreadable result: {exc}"}


def harness_checks(
    prebuilt: Path,
    out: Path,
    device: str,
    log: Any,
    timeout: float = HARNESS_TIMEOUT_S,
    steps: Sequence[str] = CHECKS,
) -> Dict[str, Any]:
    """The judge-vs-do_bench cross-check, the JAX dispatch floor, where the time of the
    solutions on streams of their own goes, and the strongest baselines in their own calling
    form against do_bench, one child process each."""
    found = {}
    bundle = ["--prebuilt", str(prebuilt)]
    limits = {"profile": PROFILE_TIMEOUT_S, "baselines": BASELINES_TIMEOUT_S}
    for step in (step for step in CHECKS if step in steps):
        result = out / f"harness-{step}.json"
        command = [sys.executable, str(HARNESS), step, "--device", device, "--json", str(result)]
        command += ["--budget", str(PERF_BUDGET_S), *([] if step == "dispatch" else bundle)]
        found[step] = run_check(command, result, max(timeout, limits.get(step, 0.0)), log)
    return found


def merge_checks(report: Dict[str, Any], checks: Dict[str, Any]) -> List[str]:
    """Put the harness checks into the report's meta (`crosscheck` by challenge, each with the
    judge run's own median of the same solution; `dispatch_floor`; `profile` by job); the lines
    that say how they came out."""
    from benchmarks.harness_check import BASELINE_JOBS, CROSSCHECK_JOBS, PROFILE_JOBS
    from benchmarks.results_files import (
        baseline_crosscheck_line,
        crosscheck_line,
        dispatch_floor_line,
        profile_line,
    )

    cross = _per_job(checks.get("crosscheck"), CROSSCHECK_JOBS, lambda job: job.split("/")[0])
    rows = {row["id"]: row for row in report.get("rows", [])}
    lines = []
    for key, entry in cross.items():
        perf = (rows.get(entry.get("job")) or {}).get("perf") or {}
        entry["judge_run_ms"] = perf.get("median_ms")
        lines.append(f"{key}: {crosscheck_line(entry)}")
    meta = report.setdefault("meta", {})
    meta["crosscheck"] = cross
    floor = checks.get("dispatch") or {"error": "not run"}
    meta["dispatch_floor"] = floor
    lines.append(dispatch_floor_line(floor))
    profiled = _per_job(checks.get("profile"), PROFILE_JOBS, lambda job: job)
    meta["profile"] = profiled
    lines += [profile_line(entry) for entry in profiled.values()]
    if "baselines" in checks:
        strongest = _per_job(checks.get("baselines"), BASELINE_JOBS, lambda job: job)
        for job, entry in strongest.items():
            perf = (rows.get(job) or {}).get("perf") or {}
            entry["judge_run_ms"] = perf.get("median_ms")
        meta["baseline_crosscheck"] = strongest
        lines += [baseline_crosscheck_line(entry) for entry in strongest.values()]
    return lines


def timing_family(report: Dict[str, Any]) -> List[Dict[str, Any]]:
    """The timed entries of the hostile catalogue's timing family beside the honest one: each is
    caught (a verdict other than pass) or must not be faster than the honest entry by more than
    TIMING_FAMILY_GAIN."""
    rows = [
        r
        for r in report.get("rows", [])
        if r["kind"] == "hostile" and r["name"].startswith("timing_")
    ]
    honest = next((r for r in rows if r["name"] == "timing_honest"), None)
    honest_ms = ((honest or {}).get("perf") or {}).get("median_ms")
    family = []
    for row in rows:
        perf = row.get("perf") or {}
        median = perf.get("median_ms")
        ratio = median / honest_ms if median and honest_ms else None
        if row["verdict"] != "pass":
            outcome = f"caught ({row['verdict']})"
        elif ratio is None:
            outcome = "not timed"
        else:
            gained = ratio < 1.0 - TIMING_FAMILY_GAIN
            outcome = "GAINED" if gained else "gained nothing"
        family.append(
            {"name": row["name"], "verdict": row["verdict"], "median_ms": median,
             "ratio_to_honest": ratio, "outcome": outcome, "note": perf.get("note", ""),
             "rounds": perf.get("rounds")}  # fmt: skip
        )
    return family


def defences_table(report: Dict[str, Any]) -> List[str]:
    """Markdown: per timed job, what the timing's defences did, the solution's own median and the
    judge's figure (their gap is what the bound's slack must cover), and where a round's time
    went (milliseconds to the solution's process / its host work / its wait for the device /
    back, for the timed calls and for the empty ones)."""
    lines = [
        "| Job | Inputs | Calls | Checked | Median ms | Reported ms | Judge ms | Replaced "
        "| Timed round (there/host/wait/back) | Empty round |"
    ]
    lines.append("|---|---|---:|---:|---:|---:|---:|---|---|---|")
    for row in report.get("rows", []):
        perf = row.get("perf") or {}
        rounds = perf.get("rounds")
        if not rounds:
            continue
        steps = rounds.get("round_steps_ms") or {}
        lines.append(
            f"| {row['id']} | {rounds.get('inputs')} | {rounds.get('calls')} | "
            f"{rounds.get('checked')} | {_fixed(perf.get('median_ms'))} | "
            f"{_fixed(rounds.get('reported_ms'))} | {_fixed(rounds.get('judge_ms'))} | "
            f"{'yes' if rounds.get('replaced') else 'no'} | {_steps(steps.get('timed'))} | "
            f"{_steps(steps.get('empty'))} |"
        )
    return lines


def _fixed(value: Optional[float]) -> str:
    return "" if value is None else f"{value:.4f}"


def _steps(parts: Optional[Dict[str, float]]) -> str:
    if not parts:
        return ""
    return " / ".join(_fixed(parts.get(k)) for k in ("there", "host", "device_wait", "back"))


def _per_job(found: Optional[Dict[str, Any]], jobs: Any, key: Any) -> Dict[str, Any]:
    """A check's entries; where the whole step failed (or did not run), an error entry, keyed
    by `key(job)`, for every solution it was to measure."""
    found = found or {"error": "not run"}
    if "error" not in found:
        return found
    return {key(job): {"job": job, "error": found["error"]} for job in jobs}


class Tee(io.TextIOBase):
    """Writes to the terminal and to the run log."""

    def __init__(self, *streams):
        self.streams = streams

    def write(self, text: str) -> int:
        for stream in self.streams:
            stream.write(text)
            stream.flush()
        return len(text)

    def isatty(self) -> bool:
        return False


def run(
    prebuilt: Path,
    out: Path,
    jobs: int,
    timeout: float,
    device: str,
    perf: bool,
    seeds: str,
    results: Optional[Path] = None,
    deadline: float = DEADLINE_S,
    ranks: Optional[int] = None,
    only: Sequence[str] = (),
    steps: Sequence[str] = CHECKS,
    first: Sequence[str] = (),
    timed_only: bool = False,
    state: Optional[Path] = None,
    stop_after: Optional[float] = None,
) -> int:
    from rich.console import Console

    from benchmarks.calls import calls_timing, start_call
    from benchmarks.results_files import write_results
    from generator.judge.commands import CommandError, TestArgs, parse_seeds, test_command
    from generator.judge.toolchains import gpus

    out.mkdir(parents=True, exist_ok=True)
    try:
        smi = subprocess.run(["nvidia-smi"], capture_output=True, text=True, timeout=60)
        (out / "nvidia-smi.txt").write_text(smi.stdout + smi.stderr)
    except (OSError, subprocess.TimeoutExpired) as exc:
        (out / "nvidia-smi.txt").write_text(f"nvidia-smi: {exc}\n")
    gpu = gpus()[0]["name"] if gpus() else "no GPU"
    with open(out / "run.log", "w") as log:
        stdout, stderr = Tee(sys.stdout, log), Tee(sys.stderr, log)
        console = Console(file=stdout, highlight=False, soft_wrap=True, width=150)
        errors = Console(file=stderr, highlight=False, soft_wrap=True, width=150)
        try:
            seed_list = parse_seeds(seeds, 0)
        except CommandError as exc:
            errors.print(f"error: {exc}", markup=False)
            return 1
        calls = start_call(state)
        checks: Optional[Dict[str, Any]] = None
        deadline_s = deadline
        kept = state / "checks.json" if state is not None else None
        if perf and device.startswith("cuda") and steps:
            if kept is not None and kept.is_file():
                checks = json.loads(kept.read_text())
                console.print(f"harness checks: as the run's first call made them ({kept})")
            else:
                # First, on a quiet GPU; never skipped by the deadline, which they shorten.
                started = time.monotonic()
                console.print(f"harness checks: {', '.join(steps)}", markup=False)
                checks = harness_checks(prebuilt, out, device, stdout, steps=steps)
                deadline_s = max(0.0, deadline - (time.monotonic() - started))
                if kept is not None:
                    kept.write_text(json.dumps(checks, indent=1) + "\n")
        else:
            console.print("harness checks: skipped (they time on a GPU)", markup=False)
        args = TestArgs(
            specs=[],
            device=device,
            perf=perf,
            build_only=False,
            out=None,
            prebuilt=prebuilt,
            json_out=out / "judge.json",
            markdown_out=out / "judge.md",
            jobs=jobs,
            timeout=timeout,
            seed=seed_list[0],
            seeds=seed_list,
            arch=None,
            rerun=True,
            specs_dir=ROOT / "specs",
            tree_dir=ROOT / "generated",
            solutions_dir=ROOT / "solutions",
            title=f"chgen judge run on {gpu}",
            perf_options={"budget_s": PERF_BUDGET_S},
            deadline_s=deadline_s,
            ranks=ranks,
            only=list(only),
            first=list(first),
            timed_only=timed_only,
            stop_after_s=None if stop_after is None else stop_after - (time.monotonic() - STARTED),
            journal=state / "journal.jsonl" if state is not None else None,
        )
        try:
            code = test_command(args, console, errors)
        except CommandError as exc:
            errors.print(f"error: {exc}", markup=False)
            return 1
        if state is not None:
            record_calls(out, calls_timing(state, calls, time.time()))
        if perf:
            family = add_checks(out, checks, console, timed_only)
            if any(entry["outcome"] == "GAINED" for entry in family):
                code = code or 1  # a cheat was timed faster than the honest entry
        if results is not None:
            report = json.loads((out / "judge.json").read_text())
            for path in write_results(report, results):
                console.print(f"results file: {path}", markup=False)
        return code


def record_calls(out: Path, timing: Dict[str, Any]) -> None:
    """A run split over calls (`--state`): each call's seconds into judge.json's meta (`calls`)
    and a line of judge.md."""
    from generator.judge.report import write_json

    report = json.loads((out / "judge.json").read_text())
    report.setdefault("meta", {})["calls"] = timing
    write_json(out / "judge.json", report)
    spans = " + ".join(f"{call['seconds']:.1f}" for call in timing["calls"])
    with open(out / "judge.md", "a") as markdown:
        markdown.write(
            f"\nOne run over {len(timing['calls'])} call(s), resumed from its journal each time: "
            f"{timing['seconds']:.1f} s ({spans}).\n"
        )


def add_checks(
    out: Path, checks: Optional[Dict[str, Any]], console: Any, timed_only: bool = False
) -> List[Dict[str, Any]]:
    """The harness checks (if any ran), the timing family and the defences' table into
    judge.json and judge.md, and their lines on the console; the timing family. `timed_only`
    is recorded in the meta (the results files say so)."""
    from generator.judge.report import write_json

    try:
        report = json.loads((out / "judge.json").read_text())
        lines = merge_checks(report, checks) if checks is not None else []
        family = timing_family(report)
        report.setdefault("meta", {})["timing_family"] = family
        report["meta"]["timed_only"] = timed_only
        write_json(out / "judge.json", report)
        with open(out / "judge.md", "a") as markdown:
            if lines:
                markdown.write(
                    "\n## Timing harness checks\n\n" + "".join(f"- {x}\n" for x in lines)
                )
            if family:
                markdown.write(
                    "\n## Timing family\n\n" + "".join(f"- {x}\n" for x in family_lines(family))
                )
            markdown.write("\n## Timing defences\n\n" + "\n".join(defences_table(report)) + "\n")
    except (OSError, ValueError) as exc:
        console.print(f"harness checks: not recorded in judge.json ({exc})", markup=False)
        return []
    for line in lines + family_lines(family):
        console.print(line, markup=False)
    return family


def family_lines(family: List[Dict[str, Any]]) -> List[str]:
    lines = []
    for entry in family:
        ratio = entry["ratio_to_honest"]
        timed = "" if entry["median_ms"] is None else f", {entry['median_ms']:.4f} ms"
        shown = "" if ratio is None else f" ({ratio:.2f}x the honest time)"
        lines.append(f"timing family: {entry['name']}: {entry['outcome']}{timed}{shown}")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    steps = parser.add_subparsers(dest="step", required=True)
    make = steps.add_parser("build", help="build the bundle here")
    make.add_argument("--out", type=Path, default=ROOT / "build" / "gpu-bundle")
    make.add_argument("--jobs", type=int, default=2)
    make.add_argument(
        "--spec",
        action="append",
        default=[],
        help="only this spec (id or file; repeat it); e.g. leave out a multi-GPU challenge for a "
        "one-GPU machine",
    )
    go = steps.add_parser("run", help="run a bundle on the GPU machine")
    go.add_argument("--prebuilt", type=Path, default=ROOT / "build" / "gpu-bundle")
    go.add_argument("--out", type=Path, default=Path(os.environ.get("OUT") or "gpu-judge-out"))
    go.add_argument("--jobs", type=int, default=12, help="parallel correctness workers")
    go.add_argument("--timeout", type=float, default=90.0)
    go.add_argument("--device", default="cuda", help="cpu only to rehearse the run here")
    go.add_argument("--no-perf", action="store_true", help="skip the timed runs (rehearsal)")
    go.add_argument("--seeds", default=SEEDS, help="seeds every solution must pass (list or count)")
    go.add_argument(
        "--results",
        type=Path,
        help="also write the results files here (default: none; make them "
        "later from judge.json with benchmarks/results_files.py)",
    )
    go.add_argument(
        "--deadline",
        type=float,
        default=DEADLINE_S,
        help="no timed job starts after this many seconds (the harness checks count)",
    )
    go.add_argument(
        "--ranks",
        type=int,
        help="every case of a multi-GPU challenge on N ranks instead of its own (N <= the GPUs)",
    )
    go.add_argument(
        "--only",
        action="append",
        default=[],
        help="only the jobs whose id matches this shell pattern (repeat it), e.g. "
        "'14[23]_*/solution/optimized/*'",
    )
    go.add_argument(
        "--first",
        action="append",
        default=[],
        help="time the jobs whose id matches this shell pattern before all others (repeat it)",
    )
    go.add_argument(
        "--timed-only",
        action="store_true",
        help="run no functional cases for a timed job (its timed calls are still checked): a "
        "run short of GPU time",
    )
    go.add_argument(
        "--state",
        type=Path,
        help="a folder kept between calls: the journal of finished jobs and the harness checks "
        "of the first call; a call given the same folder takes up what is left",
    )
    go.add_argument(
        "--stop-after",
        type=float,
        help="start no job after this many seconds of the call (what is left is reported not "
        "run, for the next call with the same --state)",
    )
    go.add_argument(
        "--checks",
        default=",".join(CHECKS),
        help=f"the harness checks to make first, comma-separated ({', '.join(CHECKS)}), or none",
    )
    args = parser.parse_args()
    if args.step == "build":
        return build(args.out.resolve(), args.jobs, args.spec)
    return run(
        args.prebuilt.resolve(),
        args.out.resolve(),
        args.jobs,
        args.timeout,
        args.device,
        not args.no_perf,
        args.seeds,
        args.results.resolve() if args.results else None,
        args.deadline,
        args.ranks,
        args.only,
        checks_of(args.checks),
        args.first,
        args.timed_only,
        args.state.resolve() if args.state else None,
        args.stop_after,
    )


def checks_of(text: str) -> List[str]:
    """`--checks a,b` (or `none`): the steps, in CHECKS order; an unknown one is an error."""
    names = [] if text.strip() in ("", "none") else [n.strip() for n in text.split(",")]
    unknown = [n for n in names if n not in CHECKS]
    if unknown:
        raise SystemExit(f"--checks: unknown {', '.join(unknown)} (known: {', '.join(CHECKS)})")
    return [step for step in CHECKS if step in names]


if __name__ == "__main__":
    sys.exit(main())
