"""JAX measured as JAX costs: the optimized JAX and CUDA solutions of 142 and 143 through the judge,
and what a trivial JAX call costs, in one short GPU run.

Step 1, on the build machine (nvcc, pydantic), from the repository root:

    python benchmarks/jax_timing.py build --out build/jax-timing

It builds only JOBS (two CUDA libraries, two JAX files) with the challenges they need: a
folder of well under 20 MB.

Step 2, on the GPU machine (torch, jax, triton), from the repository root, after
`python -m pip install --no-deps --no-build-isolation --no-index -e .`:

    python benchmarks/jax_timing.py run --prebuilt build/jax-timing

It judges JOBS as a GPU run does (benchmarks/gpu_judge.py run: the timed performance case only,
seed 0, each call a request from the worker, inputs rewritten and outputs reset between calls,
checked calls, the clock bound), then, each in a child process (benchmarks/harness_check.py):
the dispatch floor of a trivial jitted call ((a) JAX alone, (b) on the judge's buffers as the
adapter binds them, (c) as the judge times it, with the former per-call exchange beside them)
and the profile of JOBS (kernels per solve, host time of one call, and for JAX the per-call
exchange's median beside the binding's). It prints the figures against issue 23's goals (the
judge's part of a trivial call at most GOAL_HARNESS_MS above (a); JAX optimized at GOAL_PCT of
copy bandwidth or more) and writes judge.json, judge.md, harness-*.json and jax-timing.json
into $OUT (or --out). About two minutes on an H200.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

#: The solutions judged: JAX optimized, and CUDA optimized for the copy-bandwidth comparison.
JOBS = tuple(
    f"{challenge}/solution/optimized/{language}"
    for challenge in ("142_rms_norm_backward", "143_row_inverse_rms")
    for language in ("jax", "cuda")
)
#: Issue 23's goals: JAX optimized's share of copy bandwidth, and the judge's part of a trivial
#: call above JAX's own cost of it.
GOAL_PCT = {"142_rms_norm_backward": 85.0, "143_row_inverse_rms": 75.0}
GOAL_HARNESS_MS = 0.02
#: No timed job starts after this many seconds of the judge run.
DEADLINE_S = 90.0
#: Per measurement of the in-process checks (the judge's own budget is gpu_judge's).
CHECK_BUDGET_S = 1.0
CHECK_TIMEOUT_S = 120.0


def build(out: Path) -> int:
    from generator.judge.cache import Cache
    from generator.judge.plan import PlanError, plan_from_specs, resolve_specs
    from generator.spec import SpecErrors

    cache = Cache(ROOT / ".chgen-cache")
    try:
        specs = resolve_specs(["142", "143"], ROOT / "specs")
        plan = plan_from_specs(specs, ROOT / "generated", ROOT / "solutions", cache.root / "plan")
    except (PlanError, SpecErrors) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    plan.jobs = [job for job in plan.jobs if job.id in JOBS]
    missing = sorted(set(JOBS) - {job.id for job in plan.jobs})
    if missing:
        print(f"error: not in the plan: {', '.join(missing)}", file=sys.stderr)
        return 1
    from benchmarks import gpu_judge

    return gpu_judge.write_bundle(plan, out, cache, 1, "jax_timing.py")


#: The harness checks after the judge run (`run --checks` picks some).
CHECKS = ("dispatch", "profile")


def run(
    prebuilt: Path, out: Path, device: str, deadline: float, steps: Sequence[str] = CHECKS
) -> int:
    from benchmarks import gpu_judge

    out.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    code = gpu_judge.run(
        prebuilt, out, 2, 90.0, device, True, "1",
        deadline=deadline, only=list(JOBS), steps=(), timed_only=True,
    )  # fmt: skip
    judged_s = time.monotonic() - started
    checks: Dict[str, Any] = {}
    with open(out / "checks.log", "w") as log:
        for step in (step for step in CHECKS if step in steps):
            extra = ["--prebuilt", str(prebuilt)] if step == "profile" else []
            result = out / f"harness-{step}.json"
            command = [sys.executable, str(gpu_judge.HARNESS), step, "--device", device]
            command += ["--json", str(result), "--budget", str(CHECK_BUDGET_S), *extra]
            if step == "profile":
                command += [arg for job in JOBS for arg in ("--job", job)]
            checks[step] = gpu_judge.run_check(command, result, CHECK_TIMEOUT_S, log)
    report = json.loads((out / "judge.json").read_text()) if (out / "judge.json").is_file() else {}
    summary = summarize(report, checks)
    summary["seconds"] = {"judge": round(judged_s, 1), "all": round(time.monotonic() - started, 1)}
    (out / "jax-timing.json").write_text(json.dumps(summary, indent=1) + "\n")
    for line in lines_of(summary):
        print(line)
    return code


def summarize(report: Dict[str, Any], checks: Dict[str, Any]) -> Dict[str, Any]:
    """The figures of the run against the goals: per challenge the JAX and CUDA medians, their
    share of copy bandwidth and what the rounds saw; the dispatch floor; the profile."""
    rows = {row.get("id"): row for row in report.get("rows", [])}
    challenges: Dict[str, Any] = {}
    for challenge, goal in GOAL_PCT.items():
        entry: Dict[str, Any] = {"goal_pct_of_copy": goal}
        for language in ("jax", "cuda"):
            row = rows.get(f"{challenge}/solution/optimized/{language}") or {}
            perf = row.get("perf") or {}
            rounds = perf.get("rounds") or {}
            entry[language] = {
                "verdict": row.get("verdict"),
                "median_ms": perf.get("median_ms"),
                "pct_of_copy": perf.get("pct_of_copy"),
                "isolated": perf.get("isolated"),
                "reported_ms": rounds.get("reported_ms"),
                "judge_ms": rounds.get("judge_ms"),
                "replaced": rounds.get("replaced"),
                "round_steps_ms": rounds.get("round_steps_ms"),
                "note": perf.get("note"),
            }
        jax, cuda = entry["jax"], entry["cuda"]
        if jax["median_ms"] and cuda["median_ms"]:
            entry["jax_over_cuda"] = jax["median_ms"] / cuda["median_ms"]
        entry["met"] = bool(jax["pct_of_copy"] and jax["pct_of_copy"] >= goal)
        challenges[challenge] = entry
    floor = checks.get("dispatch") or {"error": "not run"}
    harness = None
    if floor.get("add_ms") is not None and floor.get("add_jax_loop_ms") is not None:
        harness = floor["add_ms"] - floor["add_jax_loop_ms"]
    return {
        "challenges": challenges,
        "dispatch_floor": floor,
        "harness_ms": harness,
        "harness_goal_met": harness is not None and harness <= GOAL_HARNESS_MS,
        "goal_harness_ms": GOAL_HARNESS_MS,
        "profile": checks.get("profile") or {"error": "not run"},
    }


def lines_of(summary: Dict[str, Any]) -> List[str]:
    from benchmarks.results_files import dispatch_floor_line, profile_line

    lines = ["", "== JAX measured as JAX costs =="]
    for challenge, entry in summary["challenges"].items():
        for language in ("jax", "cuda"):
            got = entry[language]
            steps = (got.get("round_steps_ms") or {}).get("timed") or {}
            lines.append(
                f"{challenge} {language}: {got['verdict']}, median {_ms(got['median_ms'])}, "
                f"{_pct(got['pct_of_copy'])} of copy; reported {_ms(got['reported_ms'])}, the "
                f"judge's figure {_ms(got['judge_ms'])}, replaced {got['replaced']}; a timed "
                f"round's host part {_ms(steps.get('host'))}, "
                f"its wait {_ms(steps.get('device_wait'))}"
            )
        ratio = entry.get("jax_over_cuda")
        lines.append(
            f"{challenge}: JAX at {_pct(entry['jax']['pct_of_copy'])} of copy, goal "
            f">= {entry['goal_pct_of_copy']:.0f}%: {'met' if entry['met'] else 'NOT met'}"
            + (f" (JAX/CUDA {ratio:.2f}x)" if ratio else "")
        )
    lines.append(dispatch_floor_line(summary["dispatch_floor"]))
    harness = summary["harness_ms"]
    lines.append(
        f"the judge's part of a trivial call, (c) - (a): {_ms(harness)}, goal <= "
        f"{GOAL_HARNESS_MS} ms: {'met' if summary['harness_goal_met'] else 'NOT met'}"
    )
    profiled = summary["profile"]
    if "error" in profiled:
        lines.append(f"profile: not measured ({profiled['error']})")
    else:
        lines += [profile_line(entry) for entry in profiled.values()]
    return lines


def _ms(value: Optional[float]) -> str:
    return "—" if value is None else f"{value:.4f} ms"


def _pct(value: Optional[float]) -> str:
    return "—" if value is None else f"{value:.1f}%"


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    steps = parser.add_subparsers(dest="step", required=True)
    make = steps.add_parser("build", help="build the bundle of JOBS here")
    make.add_argument("--out", type=Path, default=ROOT / "build" / "jax-timing")
    go = steps.add_parser("run", help="judge and measure JOBS on the GPU machine")
    go.add_argument("--prebuilt", type=Path, default=ROOT / "build" / "jax-timing")
    go.add_argument("--out", type=Path, default=Path(os.environ.get("OUT") or "jax-timing-out"))
    go.add_argument("--device", default="cuda")
    go.add_argument("--deadline", type=float, default=DEADLINE_S)
    go.add_argument("--checks", default=",".join(CHECKS), help="after the judge run (or none)")
    args = parser.parse_args(argv)
    if args.step == "build":
        return build(args.out.resolve())
    steps = [name.strip() for name in args.checks.split(",") if name.strip() in CHECKS]
    return run(args.prebuilt.resolve(), args.out.resolve(), args.device, args.deadline, steps)


if __name__ == "__main__":
    sys.exit(main())
