"""The GPU judge run: build everything on a machine with the toolchains, run it all on a GPU.

Step 1, on the build machine (nvcc, mojo, CuTe DSL, pydantic), from the repository root:

    python benchmarks/gpu_judge.py build --out build/gpu-bundle

It builds, for sm_90 (CuTe: sm_90a), every starter and solution of every spec, the spec's
baselines and mutants, the hostile catalogue (tests/judge/hostile) and a public-style tree
fixture, into one folder with the Mojo runtime; it prints the folder's size.

Step 2, on the GPU machine (torch, triton, jax; no mojo, no pydantic needed; the CuTe DSL
installed into a folder named by CHGEN_CUTE_SITE; Liger-Kernel, for its baseline, importable
through PYTHONPATH, which the workers inherit; TileLang and its needs likewise), from the
repository root, after installing the checkout itself (offline, no dependencies: it registers
the package data, the templates, whose bytes key the judge's cache):

    python -m pip install --no-deps --no-build-isolation --no-index -e .
    CHGEN_CUTE_SITE=/path/to/cute-site PYTHONPATH=/path/to/liger-site:/path/to/tilelang-site \
        python benchmarks/gpu_judge.py run --prebuilt build/gpu-bundle

It runs every job: correctness in parallel workers (every solution on seeds 0-4, the mutants on
every functional case, the reference against the float64 oracle, the accuracy floor), then the
timed performance cases of solutions and baselines one at a time (seed 0). It writes judge.json,
judge.md, nvidia-smi.txt and run.log into $OUT (or --out); `--results DIR` also writes the
results files there, which `python benchmarks/results_files.py judge.json` makes from the report
afterwards anyway. Exit 0 when every job ended as expected and every spec-level proof held. About
1.5 minutes of correctness, then timing until the deadline: the whole run stays within about 7
minutes.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Optional

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


def build(out: Path, jobs: int) -> int:
    from generator.judge.bundle import BundleError, build_bundle
    from generator.judge.plan import PlanError, plan_from_specs, resolve_specs
    from generator.spec import SpecErrors

    cache = Cache(ROOT / ".chgen-cache")
    try:
        specs = resolve_specs([], ROOT / "specs")
        plan = plan_from_specs(specs, ROOT / "generated", ROOT / "solutions", cache.root / "plan")
    except (PlanError, SpecErrors) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    plan.jobs += jobs_from_catalogue(CATALOGUE, "cuda")
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
    print(f"  python benchmarks/gpu_judge.py run --prebuilt {shown}")
    return 1 if unexpected else 0


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
) -> int:
    from rich.console import Console

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
            deadline_s=DEADLINE_S,
        )
        try:
            code = test_command(args, console, errors)
        except CommandError as exc:
            errors.print(f"error: {exc}", markup=False)
            return 1
        if results is not None:
            report = json.loads((out / "judge.json").read_text())
            for path in write_results(report, results):
                console.print(f"results file: {path}", markup=False)
        return code


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    steps = parser.add_subparsers(dest="step", required=True)
    make = steps.add_parser("build", help="build the bundle here")
    make.add_argument("--out", type=Path, default=ROOT / "build" / "gpu-bundle")
    make.add_argument("--jobs", type=int, default=2)
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
    args = parser.parse_args()
    if args.step == "build":
        return build(args.out.resolve(), args.jobs)
    return run(
        args.prebuilt.resolve(),
        args.out.resolve(),
        args.jobs,
        args.timeout,
        args.device,
        not args.no_perf,
        args.seeds,
        args.results.resolve() if args.results else None,
    )


if __name__ == "__main__":
    sys.exit(main())
