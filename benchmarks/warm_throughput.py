"""Jobs per minute of `chgen test` on the CPU, one worker per job against warm workers (`--warm`).

    python benchmarks/warm_throughput.py [TREE ...] [--jobs 2] [--repeat 1] [--results DIR]

The same plan is run in both modes: every challenge of the trees (default: the fixture trees of
our own under tests/), its starters in the languages that run on the CPU (PyTorch, JAX, Triton
under its interpreter) and its derived job (the audit, the reference as a solution, the derived
mistakes). Each run has a fresh cache, so nothing is cached and both modes do the same work; the
runs alternate (one worker per job, then warm, per repetition) so that the machine's load falls
on both alike, and the load average is recorded beside each figure. The verdicts of the two modes
must be the same (else the script exits 1). Prints a table and writes
benchmarks/results/warm-throughput-<date>.{json,md}: counts and seconds only.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Dict, List

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.machine import describe  # noqa: E402

TREES = [
    ROOT / "tests" / "importer" / "fixtures" / "public_style",
    ROOT / "tests" / "judge" / "fixtures" / "derived_tree",
    ROOT / "tests" / "judge" / "fixtures" / "mutant_kinds",
]
#: the starters that run on the CPU (the others only build there, and builds are cached)
LANGUAGES = ("pytorch", "jax", "triton")
MUTANTS = 4


def make_plan(trees: List[Path], work: Path) -> Any:
    """One plan over every tree: the running starters and the derived job of each challenge."""
    from generator.judge.plan import Plan, plan_from_tree

    challenges: Dict[str, Any] = {}
    jobs: List[Any] = []
    for index, tree in enumerate(trees):
        plan = plan_from_tree(tree, [], work / f"plan-{index}", MUTANTS)
        challenges.update(plan.challenges)
        jobs += [
            j
            for j in plan.jobs
            if j.kind == "derived" or (j.kind == "starter" and j.language in LANGUAGES)
        ]
    return Plan(challenges, jobs)


def run_once(plan: Any, warm: bool, jobs: int, work: Path) -> Dict[str, Any]:
    from generator.judge.cache import Cache
    from generator.judge.suite import SuiteOptions, run_plan

    cache = Cache(Path(tempfile.mkdtemp(prefix="cache-", dir=work)))
    options = SuiteOptions(device="cpu", jobs=jobs, timeout=120.0, warm=warm)
    load = os.getloadavg()[0]
    started = time.perf_counter()
    rows = run_plan(plan, options, cache)
    seconds = time.perf_counter() - started
    return {
        "seconds": round(seconds, 2),
        "jobs_per_minute": round(len(rows) / seconds * 60, 1),
        "load_start": round(load, 2),
        "load_end": round(os.getloadavg()[0], 2),
        "verdicts": {r["id"]: r["verdict"] for r in rows},
    }


def summary(runs: List[Dict[str, Any]]) -> Dict[str, Any]:
    return {
        "median_seconds": round(statistics.median(r["seconds"] for r in runs), 2),
        "median_jobs_per_minute": round(statistics.median(r["jobs_per_minute"] for r in runs), 1),
        "runs": [{k: v for k, v in r.items() if k != "verdicts"} for r in runs],
    }


def markdown(results: Dict[str, Any]) -> str:
    cold, warm = results["one_worker_per_job"], results["warm_workers"]
    lines = [
        "# Jobs per minute on the CPU: one worker per job, and warm workers",
        "",
        f"- Date: {results['date']}; machine: {results['machine']}",
        f"- Plan: {results['jobs']} jobs of {results['challenges']} challenges (our own fixture "
        f"trees): starters in {', '.join(LANGUAGES)} and one derived job each "
        f"({MUTANTS} derived mutations); {results['parallel']} jobs at a time; fresh cache per run",
        f"- Same verdicts in both modes: {results['same_verdicts']}",
        "",
        "| Mode | Runs | Median s | Median jobs/min | Load average (start → end) |",
        "|---|---:|---:|---:|---|",
    ]
    for name, entry in (("one worker per job", cold), ("warm workers (--warm)", warm)):
        loads = ", ".join(f"{r['load_start']} → {r['load_end']}" for r in entry["runs"])
        lines.append(
            f"| {name} | {len(entry['runs'])} | {entry['median_seconds']} | "
            f"{entry['median_jobs_per_minute']} | {loads} |"
        )
    lines += ["", f"Speed-up (median seconds): {results['speedup']}x.", ""]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="*", type=Path, default=TREES)
    parser.add_argument("--jobs", type=int, default=2, help="correctness runs at a time")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each mode")
    parser.add_argument("--results", type=Path, default=ROOT / "benchmarks" / "results")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="chgen-warm-bench-") as tmp:
        work = Path(tmp)
        plan = make_plan(args.trees, work)
        cold: List[Dict[str, Any]] = []
        warm: List[Dict[str, Any]] = []
        for _ in range(args.repeat):
            cold.append(run_once(plan, False, args.jobs, work))
            warm.append(run_once(plan, True, args.jobs, work))
    same = all(run["verdicts"] == cold[0]["verdicts"] for run in cold + warm)
    before, after = summary(cold), summary(warm)
    now = datetime.now(timezone.utc)
    results = {
        "date": now.strftime("%Y-%m-%d %H:%M UTC"),
        "machine": describe(),
        "challenges": len(plan.challenges),
        "jobs": len(plan.jobs),
        "parallel": args.jobs,
        "same_verdicts": same,
        "one_worker_per_job": before,
        "warm_workers": after,
        "speedup": round(before["median_seconds"] / after["median_seconds"], 2),
    }
    args.results.mkdir(parents=True, exist_ok=True)
    stem = args.results / f"warm-throughput-{now:%Y-%m-%d}"
    stem.with_suffix(".json").write_text(json.dumps(results, indent=2) + "\n")
    stem.with_suffix(".md").write_text(markdown(results))
    print(markdown(results))
    print(f"wrote {stem}.json and .md")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
