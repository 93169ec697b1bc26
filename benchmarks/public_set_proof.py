"""Prove every challenge of a public-form tree, as `chgen test --tree CLONE` does, and sum it up.

    python benchmarks/public_set_proof.py CLONE [TREE ...] [--device cpu|cuda] [--only ID ...]
        [--skip-builds] [--starters pytorch,jax] [--mutants 12] [--seeds 0,1,2,3,4] [--perf]
        [--jobs N] [--timeout S] [--deadline S] [--stop-after S --state DIR] [--results DIR]

CLONE is a folder holding challenges/ (a clone of the public LeetGPU set; more trees, e.g.
chgen's own generated/, join the same plan). No spec is needed:
each challenge is read through chgen's one reader of challenge.py, and judged (generator/judge/):
every starter the tree ships (it must build with its real toolchain, run and fail; on the CPU the
compiled languages only build, and `--skip-builds` leaves them out), and what chgen derives from
challenge.py alone (generator/judge/derived.py): the reference as a PyTorch solution on every
seed (and reference_impl_jax as a JAX solution, where challenge.py has one), the tolerance audit
(the float64 margin, the float16 verdict, the performance case's size) and the derived mistakes
with their mutation score. `--perf` also times the reference on the performance case.

A run split over calls of limited length: `--state DIR` keeps the journal of finished jobs and
each call's start (a call given the same DIR takes up what is left), `--stop-after S` starts no
job after S seconds; the last call's results files are the merged ones, with every call's
seconds. The references and derived proofs run before the starters, the slow languages last.

Two machines (a GPU machine without the toolchains or a package registry):

    # here: build every starter (CUDA for sm_75, sm_80, sm_90 and sm_100, Mojo for sm_90, CuTe
    # compile-checked) and the derived files into one folder
    python benchmarks/public_set_proof.py CLONE --build-only --out build/public-proof
    # there, after `python -m pip install --no-deps --no-build-isolation --no-index -e .`
    CHGEN_CUTE_SITE=/path/to/cute-site python benchmarks/public_set_proof.py \\
        --prebuilt build/public-proof --device cuda --perf --seeds 0,1,2,3,4

Writes benchmarks/results/public-set-proof-<date>.json and .md (or into --results): per
challenge, the starters built / ran / ended as expected by language, the reference's verdict, the
float64 margin, the float16 verdict, the performance case's GB, the reference's milliseconds, the
mutation score and the names of the survivors (the mistakes the tests miss); and a summary.
Counts, verdicts and names only: never a message, a value or code of the public set (its licence
allows no copies). The full `chgen test` report goes to --report (default: the cache folder).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import sys
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Dict, List, Optional

#: --stop-after counts from here: loading the bundle is part of a call's time
STARTED = time.perf_counter()
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.calls import calls_timing, start_call  # noqa: E402
from benchmarks.machine import describe  # noqa: E402
from generator.judge import verdicts as V  # noqa: E402
from generator.judge.cache import Cache  # noqa: E402
from generator.judge.derived import DEFAULT_MUTANTS  # noqa: E402
from generator.languages import BY_KEY  # noqa: E402

#: the judge's own limit per case; a reference slower than this on the CPU is named, not waited for
CASE_TIMEOUT_S = 60.0
#: no timed job starts after this many seconds (the performance cases are timed one at a time)
DEADLINE_S = 1500.0
#: seconds of repetitions per timed reference (the judge converges to 1% or stops)
PERF_BUDGET_S = 1.0
#: what a partial run proves first: the builds (a bundle's records, at once), every
#: challenge's derived proofs and references, then the starters, the slow languages last
KIND_ORDER = ("build", "derived", "reference_jax", "reference_solution", "starter")
LANGUAGE_ORDER = ("pytorch", "jax", "triton", "cuda", "tilelang", "mojo", "cute")


def proof_order(job: Any) -> tuple:
    kind = KIND_ORDER.index(job.kind) if job.kind in KIND_ORDER else len(KIND_ORDER)
    language = LANGUAGE_ORDER.index(job.language) if job.language in LANGUAGE_ORDER else 9
    return (kind, language if job.kind == "starter" else 0)


def load() -> float:
    return round(os.getloadavg()[0], 2)


def make_plan(args: argparse.Namespace, cache: Cache) -> tuple:
    """The plan (and the bundle's Mojo runtime): from the tree, or from a prebuilt bundle."""
    from generator.judge.bundle import load_bundle
    from generator.judge.plan import plan_from_tree

    runtime = None
    if args.prebuilt:
        plan, runtime = load_bundle(args.prebuilt, cache)
        if args.only:
            wanted = set(args.only)
            plan.jobs = [
                j for j in plan.jobs if j.challenge in wanted or j.challenge.split("_")[0] in wanted
            ]
            plan.challenges = {k: c for k, c in plan.challenges.items() if any(
                j.challenge == k for j in plan.jobs)}  # fmt: skip
    else:
        plan = None
        for tree in args.clone:
            picked = tree_selection(tree, args.only)
            if picked is None:
                continue
            part = plan_from_tree(tree, picked, cache.root / "plan" / tree.name, args.mutants)
            if plan is None:
                plan = part
            else:  # a second tree (chgen's own challenges beside a clone): keys never clash
                plan.challenges.update(part.challenges)
                plan.jobs += part.jobs
        if plan is None:
            plan = plan_from_tree(args.clone[0], args.only, cache.root / "plan", args.mutants)
    plan.jobs = sorted((j for j in plan.jobs if keep(j, args)), key=proof_order)
    return plan, runtime


def tree_selection(tree: Path, only: List[str]) -> Optional[List[str]]:
    """What of --only this tree holds (all: []); None when it holds none of it."""
    if not only:
        return []
    names = {p.parent.name for p in (tree / "challenges").glob("*/*/challenge.py")}
    picked = [w for w in only if w in names or w in {n.split("_")[0] for n in names}]
    return picked or None


def keep(job: Any, args: argparse.Namespace) -> bool:
    """--skip-builds: no starter that this device can only build (nor a starter's build for each
    GPU the platform lists); --starters: those languages; --kinds: those kinds of job."""
    if args.kinds is not None and job.kind not in args.kinds:
        return False
    if job.kind not in ("starter", "build"):
        return True
    if args.starters is not None and job.language not in args.starters:
        return False
    if job.kind == "build":
        return not args.skip_builds
    adapter = BY_KEY[job.language]
    only_builds = not adapter.runs_on_cpu or adapter.compiles_in_worker
    return not (args.skip_builds and args.device == "cpu" and only_builds)


def run_cache(args: argparse.Namespace) -> Cache:
    """The judge's cache for this run: --cache's folder (else the user's), and --rerun judging
    every job afresh (its results are still stored), as `chgen test --rerun` does."""
    return Cache(args.cache, reuse=not args.rerun)


def run(args: argparse.Namespace) -> int:
    from rich.console import Console

    from generator.judge.bundle import BundleError
    from generator.judge.commands import CommandError, TestArgs, parse_seeds, run_suite
    from generator.judge.plan import PlanError

    cache = run_cache(args)
    try:
        plan, runtime = make_plan(args, cache)
    except (PlanError, BundleError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if args.build_only:
        return build(plan, args, cache)
    try:
        seeds = parse_seeds(args.seeds, 0) or [0]
    except CommandError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    test = TestArgs(
        specs=[],
        device=args.device,
        perf=args.perf,
        build_only=False,
        out=None,
        prebuilt=args.prebuilt,
        json_out=None,
        markdown_out=None,
        jobs=args.jobs,
        timeout=args.timeout,
        seed=seeds[0],
        arch=None,
        rerun=args.rerun,
        specs_dir=ROOT / "specs",
        tree_dir=args.clone[0] if args.clone else ROOT,
        solutions_dir=ROOT / "solutions",
        title="public set proof",
        perf_options={"budget_s": PERF_BUDGET_S},
        deadline_s=args.deadline,
        seeds=seeds,
        cpu_max_elements=args.cpu_max_elements,
        warm=args.warm,
        stop_after_s=(
            None if args.stop_after is None else args.stop_after - (time.perf_counter() - STARTED)
        ),
        journal=args.state / "journal.jsonl" if args.state else None,
        ray=args.ray,
    )
    calls = start_call(args.state)
    log = io.StringIO()
    console = Console(file=log, width=200)
    err = Console(file=sys.stderr, width=200)
    started_load, started = load(), time.perf_counter()
    report = run_suite(plan, test, args.device, runtime, cache, console, err, test.title)
    seconds = time.perf_counter() - started
    report_path = args.report or cache.root / "reports" / "public-set-proof.json"
    report_path.parent.mkdir(parents=True, exist_ok=True)
    report_path.write_text(json.dumps(report, indent=1, default=str) + "\n")
    (report_path.with_suffix(".log")).write_text(log.getvalue())
    timing = {"seconds": round(seconds, 1), "load_start": started_load, "load_end": load()}
    if args.state:
        timing.update(calls_timing(args.state, calls, time.time()))
    results = summarise(report, plan, args, timing)
    write_results(results, args.results)
    print(f"report: {report_path}; log: {report_path.with_suffix('.log')}")
    return 0


def build(plan: Any, args: argparse.Namespace, cache: Cache) -> int:
    from generator.judge.bundle import BundleError, build_bundle

    plan.meta["tree_revisions"] = ", ".join(str(tree_revision(t)) for t in args.clone)

    def progress(job: Any, done: int, total: int) -> None:
        state = "ok" if (job.build or {}).get("ok") else "build failed"
        print(f"[{done}/{total}] {job.id}: {state}", file=sys.stderr, flush=True)

    try:
        bundle, size = build_bundle(plan, args.out, cache, "sm_90", args.jobs or 2, progress)
    except BundleError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    failed = sum(1 for j in bundle.jobs if not (j.build or {}).get("ok"))
    print(f"{args.out}: {len(bundle.jobs)} jobs ({failed} did not build), {size / 1e6:.1f} MB")
    return 0


# ------------------------------------------------------------------------------ the summary
def starter_state(row: Dict[str, Any]) -> Dict[str, Any]:
    """Built (the toolchain took it), ran (the judge called it), as expected (it built, ran where
    this device runs it, and did not pass)."""
    verdict = row["verdict"]
    built = verdict not in (V.BUILD_ERROR, V.JUDGE_ERROR, V.NOT_RUN)
    return {"verdict": verdict, "built": built, "ran": built and verdict != V.BUILT,
            "as_expected": bool(row["ok"])}  # fmt: skip


def half_verdict(audit: Dict[str, Any]) -> str:
    if not audit.get("float32"):
        return "n/a"
    if "half" in audit:
        return "fails" if audit["half_fails"] else "passes"
    return "does not run" if audit.get("half_error") else "not measured"


def challenge_summary(key: str, rows: List[Dict[str, Any]], proof: Dict[str, Any]) -> Dict:
    from generator.judge.derived_proofs import EQUIVALENT, NOT_JUDGED, SURVIVOR

    derived = proof.get("derived") or {}
    reference = derived.get("reference") or {}
    audit = derived.get("audit") or {}
    mutants = derived.get("mutants") or {}
    table = mutants.get("table") or []
    counts = mutants.get("counts") or {}
    return {
        "challenge": key,
        "starters": {r["language"]: starter_state(r) for r in rows if r["kind"] == "starter"},
        # each starter built for each GPU the platform lists ("cuda sm_75": built or not)
        "builds": {
            f"{r['language']} {r['name']}": r["verdict"] == V.BUILT
            for r in rows
            if r["kind"] == "build"
        },
        "reference": {
            "verdict": reference.get("verdict"),
            "cases": reference.get("cases"),
            "passed": reference.get("cases_passed"),
            "seeds": reference.get("seeds"),
            "timed": reference.get("timed"),
        },
        # reference_impl_jax as a JAX solution (None: challenge.py has none)
        "reference_jax": derived.get("reference_jax"),
        "reference_ms": reference.get("median_ms"),
        "float64_margin": audit.get("margin"),
        "margin_ok": audit.get("margin_ok"),
        "float16": half_verdict(audit),
        "float16_ratio": audit.get("half"),
        "perf_gb": audit.get("perf_gb"),
        "perf_fits": audit.get("perf_fits"),
        "mutation_score": mutants.get("score"),
        "mutants": {k: v for k, v in counts.items()},
        "survivors": [m["name"] for m in table if m["status"] == SURVIVOR],
        "equivalent": [m["name"] for m in table if m["status"] == EQUIVALENT],
        "not_judged": [
            {"name": m["name"], "verdict": m["verdict"]} for m in table if m["status"] == NOT_JUDGED
        ],
        "skipped_cases": max((len(r.get("skipped_cases") or []) for r in rows), default=0),
        # chgen's own words about what was left out (no starter file, a multi-GPU challenge)
        "notes": derived.get("notes") or [],
    }


def summarise(
    report: Dict[str, Any], plan: Any, args: argparse.Namespace, timing: Dict[str, Any]
) -> Dict[str, Any]:
    proofs = report.get("proofs") or {}
    challenges = []
    for key in plan.challenges:
        rows = [r for r in report["rows"] if r["challenge"] == key]
        entry = challenge_summary(key, rows, proofs.get(key) or {})
        if not (proofs.get(key) or {}).get("derived"):
            entry["notes"] = list(plan.challenges[key].notes)
        challenges.append(entry)
    starters: Dict[str, Dict[str, int]] = {}
    for entry in challenges:
        for language, state in entry["starters"].items():
            tally = starters.setdefault(
                language, {"jobs": 0, "built": 0, "ran": 0, "as_expected": 0}
            )
            tally["jobs"] += 1
            for name in ("built", "ran", "as_expected"):
                tally[name] += bool(state[name])
    builds: Dict[str, Dict[str, Any]] = {}
    for entry in challenges:
        for name, built in entry["builds"].items():
            tally = builds.setdefault(name, {"jobs": 0, "built": 0, "failed": []})
            tally["jobs"] += 1
            tally["built"] += built
            if not built:
                tally["failed"].append(entry["challenge"])
    scores = [c["mutation_score"] for c in challenges if c["mutation_score"] is not None]
    # a job left by a call that stopped starting jobs proves nothing yet: counted apart
    derived = [c for c in challenges if c["reference"]["verdict"] not in (None, V.NOT_RUN)]
    meta = report.get("meta", {})
    summary = {
        "challenges": len(challenges),
        "derived": len(derived),
        "reference_passes": sum(1 for c in derived if c["reference"]["verdict"] == V.PASS),
        "reference_fails": sorted(
            f"{c['challenge']} ({c['reference']['verdict']})"
            for c in derived
            if c["reference"]["verdict"] != V.PASS
        ),
        # reference_impl_jax is a job of its own: counted wherever it ran (a run of --kinds
        # reference_jax has no reference_solution jobs)
        "reference_jax": sum(
            1 for c in challenges
            if c["reference_jax"] and c["reference_jax"]["verdict"] not in (None, V.NOT_RUN)
        ),  # fmt: skip
        "reference_jax_passes": sum(
            1 for c in challenges if (c["reference_jax"] or {}).get("verdict") == V.PASS
        ),
        "reference_jax_fails": sorted(
            f"{c['challenge']} ({c['reference_jax']['verdict']})"
            for c in challenges
            if c["reference_jax"] and c["reference_jax"]["verdict"] not in (None, V.PASS, V.NOT_RUN)
        ),
        "margin_within_tenth": sum(1 for c in derived if c["margin_ok"]),
        "margin_over_tenth": [c["challenge"] for c in derived if c["margin_ok"] is False],
        "margin_not_measured": [c["challenge"] for c in derived if c["margin_ok"] is None],
        "float16": {
            verdict: sum(1 for c in derived if c["float16"] == verdict)
            for verdict in ("fails", "passes", "n/a", "does not run", "not measured")
        },
        "float16_passes": [c["challenge"] for c in derived if c["float16"] == "passes"],
        "perf_over_d003": [c["challenge"] for c in derived if c["perf_fits"] is False],
        "starters": starters,
        "builds": builds,
        "mutants": {
            name: sum((c["mutants"] or {}).get(name, 0) for c in derived)
            for name in ("killed", "survivor", "equivalent", "not applicable", "not judged",
                         "only_raised")  # fmt: skip
        },
        "mutation_score_mean": round(statistics.mean(scores), 4) if scores else None,
        "mutation_score_median": round(statistics.median(scores), 4) if scores else None,
        "challenges_with_survivors": sum(1 for c in derived if c["survivors"]),
        "timed": sum(1 for c in challenges if c.get("reference_ms") is not None),
        "jobs": report["summary"]["jobs"],
        # left by a call that stopped starting jobs (--stop-after), for a resumed call
        "not_started": sum(1 for r in report["rows"] if r["verdict"] == V.NOT_RUN),
        "jobs_as_expected": report["summary"]["ok"],
    }
    return {
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "tree_revision": (
            ", ".join(str(tree_revision(t)) for t in args.clone)
            if args.clone
            # a bundle: the revisions it was built from (else when), never the machine's path
            else plan.meta.get("tree_revisions") or f"a bundle built {plan.meta.get('built')}"
        ),
        "device": args.device,
        "machine": describe(),
        "gpu": (meta.get("machine") or {}).get("gpu"),
        "options": {
            "only": args.only,
            "skip_builds": args.skip_builds,
            "starters": sorted(args.starters) if args.starters is not None else "all shipped",
            "mutants": args.mutants,
            "seeds": meta.get("seeds"),
            "perf": args.perf,
            "jobs": args.jobs,
            "case_timeout_s": args.timeout,
            "cpu_max_elements": args.cpu_max_elements,
            "warm_workers": args.warm,
        },
        "timing": {
            **timing,
            "jobs_per_minute": round(
                sum(1 for r in report["rows"] if r["verdict"] != V.NOT_RUN)
                / max(timing["seconds"], 0.1)
                * 60,
                1,
            ),
        },
        "summary": summary,
        "challenges": challenges,
    }


def tree_revision(tree: Path) -> Optional[str]:
    import subprocess

    done = subprocess.run(
        ["git", "-C", str(tree), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    )
    return done.stdout.strip() or None if done.returncode == 0 else None


# ------------------------------------------------------------------------------ the files
def _cell(value: Any, spec: str = ".3g") -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return format(value, spec)
    return str(value)


def markdown(results: Dict[str, Any]) -> str:
    s = results["summary"]
    options = results["options"]
    lines = [
        f"# The public set proved by chgen test --tree ({results['device']})",
        "",
        f"- Date: {results['date']}; tree revision {results['tree_revision']}",
        f"- Machine: {results['machine']}" + (f"; GPU {results['gpu']}" if results["gpu"] else ""),
        f"- Options: starters {options['starters']}, builds skipped: {options['skip_builds']}, "
        f"{options['mutants']} derived mutations per challenge (besides the generic wrong "
        f"outputs), seeds {options['seeds']}, timed: {options['perf']}, "
        f"{options['jobs'] or 'default'} parallel jobs, {options['case_timeout_s']:g} s per case",
        f"- Time: {results['timing']['seconds']} s for {s['jobs']} jobs "
        f"({results['timing']['jobs_per_minute']} jobs/min; load average "
        f"{results['timing']['load_start']} at the start, {results['timing']['load_end']} at "
        "the end)"
        + (
            "; over " + ", ".join(
                f"call {i + 1}: {c['seconds']} s, {c['jobs_finished']} jobs"
                + (" (killed at its limit)" if c["killed"] else "")
                for i, c in enumerate(results["timing"]["calls"])
            )
            if results["timing"].get("calls")
            else ""
        ),  # fmt: skip
        f"- Jobs as expected: {s['jobs_as_expected']}/{s['jobs']}"
        + (f"; not started (left for a resumed call): {s['not_started']}"
           if s.get("not_started") else ""),  # fmt: skip
        "",
        "## Summary",
        "",
        f"- Challenges: {s['challenges']}; derived proofs for {s['derived']}",
        f"- The reference as a PyTorch solution passes every case: {s['reference_passes']}"
        f" of {s['derived']}"
        + (
            f" (not: {', '.join(s['reference_fails'])})" if s["reference_fails"] else ""
        ),  # fmt: skip
        f"- reference_impl_jax as a JAX solution passes every case: "
        f"{s['reference_jax_passes']} of {s['reference_jax']}"
        + (
            f" (not: {', '.join(s['reference_jax_fails'])})" if s["reference_jax_fails"] else ""
        ),  # fmt: skip
        f"- The reference within a tenth of the tolerance of itself in float64: "
        f"{s['margin_within_tenth']} of {s['derived']}"
        + (f"; over: {', '.join(s['margin_over_tenth'])}" if s["margin_over_tenth"] else "")
        + (
            f"; not measured: {', '.join(s['margin_not_measured'])}"
            if s["margin_not_measured"]
            else ""
        ),  # fmt: skip
        "- The reference in float16 against a float32 challenge's tolerance: "
        + ", ".join(f"{v} {k}" for k, v in s["float16"].items() if v)
        + (
            f" (tolerance too loose: {', '.join(s['float16_passes'])})"
            if s["float16_passes"]
            else ""
        ),  # fmt: skip
        "- Performance case over rule D003 (five copies in 16 GB): "
        + (", ".join(s["perf_over_d003"]) or "none"),
        f"- Derived mistakes: {s['mutants']['killed']} killed ({s['mutants']['only_raised']} "
        f"only by raising), {s['mutants']['survivor']} survived, "
        f"{s['mutants']['equivalent']} equivalent on every case (set apart), "
        f"{s['mutants']['not applicable']} not applicable, {s['mutants']['not judged']} not "
        f"judged; mutation score mean {_cell(s['mutation_score_mean'], '.1%')}, median "
        f"{_cell(s['mutation_score_median'], '.1%')}; {s['challenges_with_survivors']} "
        "challenge(s) with mistakes the tests miss",
        f"- References timed on the performance case: {s['timed']}",
        "- Cases left out (a tensor over --cpu-max-elements): "
        + (", ".join(f"{c['challenge']} ({c['skipped_cases']})" for c in results["challenges"]
                     if c.get("skipped_cases")) or "none"),  # fmt: skip
        "",
        "## Starters by language",
        "",
        "| Language | Starters | Built | Ran | As expected |",
        "|---|---:|---:|---:|---:|",
    ]
    for language, tally in sorted(s["starters"].items()):
        lines.append(
            f"| {BY_KEY[language].title} | {tally['jobs']} | {tally['built']} | {tally['ran']} | "
            f"{tally['as_expected']} |"
        )
    lines += [
        "",
        "## Starters built for each GPU the platform lists",
        "",
        "| Language | Architecture | Starters | Built | Did not build |",
        "|---|---|---:|---:|---|",
    ]
    for name, tally in s.get("builds", {}).items():
        language, _, target = name.partition(" ")
        lines.append(
            f"| {BY_KEY[language].title} | {target} | {tally['jobs']} | {tally['built']} | "
            f"{', '.join(tally['failed']) or '—'} |"
        )
    lines += [
        "",
        "## Per challenge",
        "",
        "Starters: as expected / judged. Margin: the reference's error/tolerance against itself in "
        "float64 (limit 0.1). Float16: the reference in float16 fails (as it must) or passes the "
        "tolerance. Score: derived mistakes killed / (killed + survivors).",
        "",
        "| Challenge | Starters | Reference | Margin | Float16 | Perf GB | Reference ms | Score "
        "| Mistakes the tests miss |",
        "|---|---:|---|---:|---|---:|---:|---:|---|",
    ]
    for c in results["challenges"]:
        starters = c["starters"]
        ok = sum(1 for st in starters.values() if st["as_expected"])
        bad = [lang for lang, st in starters.items() if not st["as_expected"]]
        starter_cell = f"{ok}/{len(starters)}" + (f" (not: {', '.join(bad)})" if bad else "")
        ref = c["reference"]
        ref_cell = (
            "—" if ref["verdict"] is None else f"{ref['verdict']} {ref['passed']}/{ref['cases']}"
        )
        if c.get("reference_jax"):
            ref_cell += f"; JAX {c['reference_jax']['verdict']}"
        score = "—" if c["mutation_score"] is None else f"{c['mutation_score']:.0%}"
        lines.append(
            f"| {c['challenge']} | {starter_cell} | {ref_cell} | {_cell(c['float64_margin'])} | "
            f"{c['float16']} | {_cell(c['perf_gb'])} | {_cell(c['reference_ms'], '.4f')} | "
            f"{score} | {', '.join(c['survivors']) or '—'} |"
        )
    apart = [c for c in results["challenges"] if c["reference"]["verdict"] is None]
    if apart:
        lines += ["", "## Not derived", ""]
        lines += [f"- {c['challenge']}: {'; '.join(c['notes']) or 'no derived job'}" for c in apart]
    return "\n".join(lines) + "\n"


def write_results(results: Dict[str, Any], folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    stem = f"public-set-proof-{results['date'][:10]}" + ("" if results["device"] == "cpu" else
                                                         f"-{results['device']}")  # fmt: skip
    (folder / f"{stem}.json").write_text(json.dumps(results, indent=1) + "\n")
    (folder / f"{stem}.md").write_text(markdown(results))
    print(f"results: {folder / stem}.json, .md")


def parse(argv: Optional[List[str]] = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "clone", nargs="*", type=Path, help="folders holding challenges/ (a clone, chgen's own)"
    )
    parser.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    parser.add_argument("--only", nargs="*", default=[], help="challenge ids or directory names")
    parser.add_argument(
        "--skip-builds",
        action="store_true",
        help="on the CPU, leave out the starters that would only be built",
    )
    parser.add_argument(
        "--starters",
        type=lambda t: set(t.split(",")) if t else set(),
        default=None,
        help="only these starter languages, e.g. pytorch,jax",
    )
    parser.add_argument(
        "--kinds",
        type=lambda t: set(t.split(",")) if t else set(),
        default=None,
        help="only these kinds of job, e.g. reference_solution (with --perf: the timed references)",
    )
    parser.add_argument("--mutants", type=int, default=DEFAULT_MUTANTS)
    parser.add_argument("--seeds", default="1", help="a list (0,1,2,3,4) or a count from 0 (5)")
    parser.add_argument("--perf", action="store_true", help="time the reference too")
    parser.add_argument("--jobs", type=int, default=None, help="parallel correctness runs")
    parser.add_argument("--timeout", type=float, default=CASE_TIMEOUT_S, help="seconds per case")
    parser.add_argument(
        "--deadline",
        type=float,
        default=DEADLINE_S,
        help="no timed job starts after this many seconds",
    )
    parser.add_argument(
        "--cpu-max-elements",
        type=int,
        default=None,
        help="on the CPU, skip (and name) cases with a tensor over N elements",
    )
    parser.add_argument(
        "--warm",
        action="store_true",
        help="warm workers: torch imported once per worker, jobs streamed",
    )
    parser.add_argument(
        "--stop-after",
        type=float,
        default=None,
        help="no job starts after this many seconds (the rest is left for a resumed run)",
    )
    parser.add_argument(
        "--state",
        type=Path,
        default=None,
        help="a folder kept between calls: the journal of finished jobs (a run given the same "
        "folder again takes up what is left) and each call's seconds",
    )
    parser.add_argument(
        "--ray",
        default=None,
        metavar="ADDRESS",
        help="the jobs on a Ray cluster ('local' starts one here), as chgen test --ray",
    )
    parser.add_argument("--rerun", action="store_true", help="ignore cached results")
    parser.add_argument("--cache", type=Path, default=None, help="the judge's cache folder")
    parser.add_argument("--report", type=Path, default=None, help="the full chgen test report")
    parser.add_argument("--results", type=Path, default=ROOT / "benchmarks" / "results")
    parser.add_argument("--build-only", action="store_true", help="build a bundle into --out")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--prebuilt", type=Path, default=None, help="run a bundle built here")
    args = parser.parse_args(argv)  # fmt: skip
    if args.prebuilt is None and not args.clone:
        parser.error("give CLONE, or --prebuilt BUNDLE")
    if args.build_only and args.out is None:
        parser.error("--build-only needs --out DIR")
    return args


if __name__ == "__main__":
    raise SystemExit(run(parse()))
