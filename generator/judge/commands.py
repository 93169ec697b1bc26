"""`chgen judge` and `chgen test`: argument checks, running, printing (generator/commands/ calls
in with a request's options).

Every expected problem raises CommandError with a one-line message; the CLI prints it and exits
non-zero.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from generator.cache_dir import cache_root
from generator.judge import verdicts as V
from generator.judge.cache import Cache
from generator.judge.toolchains import default_device, gpus, machine_facts

DEFAULT_REPORT_NAME = Path("reports") / "test.json"


class CommandError(Exception):
    pass


def _device(device: Optional[str]) -> str:
    device = device or default_device()
    if device not in ("cuda", "cpu"):
        raise CommandError(f"--device must be cuda or cpu, not {device!r}")
    if device == "cuda" and not gpus():
        raise CommandError("no NVIDIA GPU is visible (nvidia-smi); use --device cpu")
    return device


def _ranks(ranks: Optional[int], device: str) -> Optional[int]:
    """--ranks N: one GPU per rank, so never more ranks than the GPUs this machine has."""
    if ranks is None:
        return None
    if ranks < 1:
        raise CommandError("--ranks must be at least 1")
    visible = len(gpus()) if device == "cuda" else None
    if visible is not None and ranks > visible:
        raise CommandError(
            f"--ranks {ranks}: this machine has {visible} GPU(s), one per rank; "
            f"ask for at most {visible}"
        )
    return ranks


def challenge_gpus(challenge_dir: Path) -> int:
    """challenge.py's num_gpus (1 when it does not say)."""
    from generator.challenge.pyfile import read_challenge_py

    text = (challenge_dir / "challenge.py").read_text(encoding="utf-8", errors="replace")
    value = read_challenge_py(text).literal("num_gpus", 1)
    return value if isinstance(value, int) else 1


def default_jobs(device: str) -> int:
    cores = os.cpu_count() or 2
    return max(1, min(cores, 8 if device == "cuda" else 4))


# ------------------------------------------------------------------------------------ judge
def judge_solution(
    challenge_dir: Path,
    solution: Path,
    device: Optional[str],
    perf: bool,
    timeout: float,
    json_out: Optional[Path],
    seed: Optional[int],
    arch: Optional[str],
    rerun: bool,
    specs_dir: Path,
    memory_limit: Optional[float] = None,
    sandbox: bool = True,
    cpu_max_elements: Optional[int] = None,
    ranks: Optional[int] = None,
) -> Dict[str, Any]:
    """One solution judged (and its result written as JSON to `json_out`); print_result
    shows it, V.exit_code(result["verdict"]) is the command's exit code."""
    from generator.judge.plan import case_names_from_spec
    from generator.judge.runner import Job, judge, random_seed
    from generator.judge.toolchains import target_for
    from generator.languages import for_file, suffixes

    if not (challenge_dir / "challenge.py").is_file():
        raise CommandError(f"{challenge_dir}: no challenge.py here")
    if not solution.is_file():
        raise CommandError(f"{solution}: no such file")
    language = for_file(solution.name)
    if language is None:
        raise CommandError(f"{solution.name}: unknown language; name it one of {suffixes()}")
    if timeout <= 0:
        raise CommandError("--timeout must be positive")
    if memory_limit is not None and memory_limit <= 0:
        raise CommandError("--memory-limit must be positive (GiB)")
    device = _device(device)
    ranks = _ranks(ranks, device)
    if ranks is not None and challenge_gpus(challenge_dir) <= 1:
        raise CommandError(
            f"--ranks {ranks}: {challenge_dir} is a single-GPU challenge (num_gpus 1); "
            "--ranks applies to multi-GPU challenges only"
        )
    spec = specs_dir / f"{challenge_dir.resolve().name}.yaml"
    job = Job(
        challenge_dir=challenge_dir,
        source=solution,
        language=language.key,
        device=device,
        perf=perf,
        timeout=timeout,
        seed=random_seed() if seed is None else seed,
        target=target_for(language.key, arch if language.native else None),
        case_names=case_names_from_spec(spec) if spec.is_file() else None,
        memory_limit=int(memory_limit * 2**30) if memory_limit else None,
        sandbox=sandbox,
        cpu_max_elements=cpu_max_elements,
        ranks=ranks,
    )
    result = judge(job, Cache(reuse=not rerun))
    if json_out is not None:
        from generator.judge.report import write_json

        write_json(json_out, result)
    return result


def print_result(result: Dict[str, Any], console: Any) -> None:
    from rich.table import Table

    cases = result.get("cases") or []
    skipped = [s for s in result.get("skipped") or [] if isinstance(s, dict)]
    if cases or skipped:
        columns = error_columns(cases)
        table = Table(show_header=True)
        for name in ("Case", "Verdict", *columns, "Seconds"):
            table.add_column(name)
        for case in cases:
            errors = [error_cell(case, name) for name in columns]
            seconds = f"{case.get('seconds', 0):.3f}"
            table.add_row(case["name"], case.get("verdict", ""), *errors, seconds)
        for case in skipped:
            why = [case["why"]] + [""] * (len(columns) - 1)
            table.add_row(case["name"], "skipped", *why, "")
        console.print(table)
        if skipped:
            console.print(
                f"skipped: {len(skipped)} case(s) with a tensor too large for the interpreter on "
                "the CPU (raise the limit with --cpu-max-elements N, or judge on a GPU)",
                markup=False,
            )
    perf = result.get("perf") or {}
    if perf.get("median_ms") is not None:
        line = (
            f"performance: median {perf['median_ms']:.4f} ms, min {perf['min_ms']:.4f} ms, "
            f"spread {perf['spread']:.1%} over {perf['reps']} reps ({perf['clock']})"
        )
        if perf.get("gbps"):
            line += f"; {perf['gbps']:.0f} GB/s"
        if perf.get("pct_of_copy"):
            line += f" = {perf['pct_of_copy']:.1f}% of copy ({perf['copy_gbps']:.0f} GB/s)"
        console.print(line, markup=False)
        if perf.get("note"):
            console.print(f"note: {perf['note']}", markup=False)
    if perf.get("rounds"):
        from generator.judge.report import rounds_line

        console.print(rounds_line(perf["rounds"]), markup=False)
    forced = (result.get("env") or {}).get("forced_ranks")
    if forced:
        from generator.judge.report import ranks_line

        console.print(ranks_line(forced), markup=False)
    if result["verdict"] not in (V.PASS, V.BUILT) and result.get("detail"):
        console.print(result["detail"].rstrip()[-3000:], markup=False)
    cached = " (cached)" if result.get("cached") else ""
    console.print(
        f"{result['verdict']}: {result['message']}{cached} [{result['source']}]", markup=False
    )


def error_columns(cases: List[Dict[str, Any]]) -> Tuple[str, ...]:
    """Integer outputs are compared for equality: their cases show how many elements differ and
    the largest difference, not a relative error."""
    if any(case.get("exact") for case in cases):
        return ("Mismatches", "Max abs err")
    return ("Max abs err", "Max rel err")


def error_cell(case: Dict[str, Any], column: str) -> str:
    if column == "Mismatches":
        if "mismatches" not in case:
            return ""
        return f"{case['mismatches']:,} of {case['compared']:,}"
    key = {"Max abs err": "max_abs", "Max rel err": "max_rel"}[column]
    if key not in case:
        return ""
    if isinstance(case[key], str):  # "nan" or "inf": a failing element without a finite error
        return case[key]
    return f"{case[key]:g}" if case.get("exact") else f"{case[key]:.2e}"


# ------------------------------------------------------------------------------------- test
@dataclass
class TestArgs:
    specs: List[str]
    device: Optional[str]
    perf: bool
    build_only: bool
    out: Optional[Path]
    prebuilt: Optional[Path]
    json_out: Optional[Path]
    markdown_out: Optional[Path]
    jobs: Optional[int]
    timeout: float
    seed: int
    arch: Optional[str]
    rerun: bool
    specs_dir: Path
    tree_dir: Path
    solutions_dir: Path
    title: str = "chgen test"
    perf_options: Dict[str, Any] = field(default_factory=dict)
    deadline_s: Optional[float] = None  # no job is timed after this many seconds
    #: every seed a solution must pass (the first also times it); None: just `seed`
    seeds: Optional[List[int]] = None
    #: only these job kinds (starter, solution, baseline, mutant, ...); empty: all
    kinds: List[str] = field(default_factory=list)
    #: the Triton interpreter's per-tensor limit on the CPU (None: the judge's default)
    cpu_max_elements: Optional[int] = None
    #: every case of a multi-GPU challenge on this many ranks instead of its own (--ranks)
    ranks: Optional[int] = None
    #: only the jobs whose id matches one of these shell patterns (fnmatch); empty: all
    only: List[str] = field(default_factory=list)
    #: `--tree` without `--specs`: every challenge of the tree, read from its files
    tree_mode: bool = False
    #: mistakes derived from each reference_impl (generator/judge/derived.py); None: derive
    #: nothing (no reference solution, no audit, no derived mistakes)
    mutants: Optional[int] = None
    #: correctness runs on warm workers (generator/judge/pool.py)
    warm: bool = False
    #: the jobs whose id matches one of these patterns are timed before all others
    first: List[str] = field(default_factory=list)
    #: every timed job is timed only, its correctness shown by the checked timed calls alone
    #: (a GPU run short of time; the functional cases and their seeds are not run)
    timed_only: bool = False
    #: every job sent to this Ray cluster, "local" starting one (generator/judge/ray_pool.py)
    ray: Optional[str] = None
    #: where a local Ray cluster keeps its files (None: a temporary folder, removed after)
    ray_temp_dir: Optional[Path] = None
    #: no job starts at all after this many seconds (the rest is left for a resumed run)
    stop_after_s: Optional[float] = None
    #: the run's journal (generator/judge/journal.py): what it holds is not run again
    journal: Optional[Path] = None


def parse_seeds(text: Optional[str], seed: int) -> Optional[List[int]]:
    """`--seeds 0,1,2,3,4` (a list) or `--seeds 5` (five seeds from --seed on)."""
    if text is None or not text.strip():
        return None
    try:
        if "," in text:
            seeds = [int(part) for part in text.split(",") if part.strip()]
        else:
            count = int(text)
            if count < 1:
                raise CommandError("--seeds takes a count >= 1 or a list such as 0,1,2")
            seeds = list(range(seed, seed + count))
    except ValueError:
        raise CommandError(f"--seeds {text!r}: give a count (5) or a list (0,1,2,3,4)") from None
    if not seeds or len(set(seeds)) != len(seeds):
        raise CommandError(f"--seeds {text!r}: the seeds must be distinct")
    return seeds


def live_plan(args: TestArgs, cache: Cache) -> Any:
    from generator.judge.plan import PlanError, plan_from_specs, plan_from_tree, resolve_specs

    if args.mutants is not None and args.mutants < 0:
        raise CommandError("--mutants must be 0 or more")
    work = cache.root / "plan"
    try:
        if args.tree_mode:
            plan = plan_from_tree(args.tree_dir, args.specs, work, args.mutants)
        else:
            paths = resolve_specs(args.specs, args.specs_dir)
            plan = plan_from_specs(paths, args.tree_dir, args.solutions_dir, work, args.mutants)
    except PlanError as exc:
        raise CommandError(str(exc)) from None
    return only_ids(only_kinds(plan, args.kinds), args.only)


def only_ids(plan: Any, patterns: List[str]) -> Any:
    """Keep the jobs whose id matches one of `patterns` (shell patterns, e.g.
    `142_*/solution/optimized/*`); the proofs of the others are then not shown."""
    import fnmatch

    if patterns:
        plan.jobs = [j for j in plan.jobs if any(fnmatch.fnmatch(j.id, p) for p in patterns)]
        if not plan.jobs:
            raise CommandError(f"no job matches {', '.join(patterns)}")
    return plan


def timing_order(plan: Any, first: List[str], timed_only: bool) -> Any:
    """`first`: those jobs timed before the others, in the order of the patterns they first
    match; `timed_only`: a timed job runs no functional cases (its timed calls are still
    checked)."""
    import fnmatch

    for job in plan.jobs:
        matched = [i for i, p in enumerate(first) if fnmatch.fnmatch(job.id, p)]
        if matched:
            job.priority = matched[0] - len(first)
        if timed_only and job.perf:
            job.functional = False
    return plan


def only_kinds(plan: Any, kinds: List[str]) -> Any:
    """`--kind`: keep only those jobs (the proofs of the others are then not shown)."""
    if kinds:
        plan.jobs = [j for j in plan.jobs if j.kind in kinds]
        if not plan.jobs:
            raise CommandError(f"no job of kind {', '.join(kinds)}")
    return plan


def test_command(args: TestArgs, console: Any, err: Any) -> int:
    from generator.judge.bundle import BundleError, build_bundle, load_bundle

    if args.build_only and args.prebuilt:
        raise CommandError("--build-only and --prebuilt exclude each other")
    if args.build_only and args.out is None:
        raise CommandError("--build-only needs --out DIR")
    if args.build_only and args.ranks is not None:
        raise CommandError("--ranks applies to running; --build-only runs nothing")
    if args.ray is not None and (args.build_only or args.warm):
        flag = "--build-only" if args.build_only else "--warm"
        raise CommandError(
            f"--ray and {flag} exclude each other (the cluster's tasks run the jobs)"
        )
    if args.timeout <= 0:
        raise CommandError("--timeout must be positive")
    cache = Cache(reuse=not args.rerun)
    if args.build_only:
        plan = live_plan(args, cache)
        jobs = args.jobs or default_jobs("cpu")

        def progress(pj: Any, done: int, total: int) -> None:
            state = "ok" if (pj.build or {}).get("ok") else "FAILED"
            err.print(f"[{done}/{total}] build {pj.id}: {state}", markup=False)

        try:
            bundle, size = build_bundle(plan, args.out, cache, args.arch, jobs, progress)
        except BundleError as exc:
            raise CommandError(str(exc)) from None
        return report_builds(bundle, args.out, size, console)

    device = _device(args.device)
    _ranks(args.ranks, device)
    mojo_runtime = None
    if args.prebuilt:
        try:
            plan, mojo_runtime = load_bundle(args.prebuilt, cache)
        except BundleError as exc:
            raise CommandError(str(exc)) from None
        if args.specs:
            wanted = set(args.specs)
            plan.jobs = [
                j for j in plan.jobs if j.challenge in wanted or j.challenge.split("_")[0] in wanted
            ]
            if not plan.jobs:
                raise CommandError(f"the bundle has no jobs for {', '.join(wanted)}")
        plan = only_ids(only_kinds(plan, args.kinds), args.only)
    else:
        plan = live_plan(args, cache)
    plan = timing_order(plan, args.first, args.timed_only)
    if args.ranks is not None and not any(c.num_gpus > 1 for c in plan.challenges.values()):
        raise CommandError(
            f"--ranks {args.ranks}: no multi-GPU challenge (num_gpus > 1) among these jobs"
        )
    report = run_suite(plan, args, device, mojo_runtime, cache, console, err, args.title)
    json_out = args.json_out or cache_root() / DEFAULT_REPORT_NAME
    from generator.judge.report import markdown, write_json

    write_json(json_out, report)
    console.print(f"report: {json_out}", markup=False)
    if args.markdown_out is not None:
        args.markdown_out.parent.mkdir(parents=True, exist_ok=True)
        args.markdown_out.write_text(markdown(report))
        console.print(f"markdown: {args.markdown_out}", markup=False)
    summary = report["summary"]
    return 0 if not summary["failed"] and not summary["proof_failures"] else 1


def run_suite(
    plan: Any,
    args: TestArgs,
    device: str,
    mojo_runtime: Optional[Path],
    cache: Cache,
    console: Any,
    err: Any,
    title: str = "chgen test",
) -> Dict[str, Any]:
    from generator.judge.derived_proofs import print_derived
    from generator.judge.proofs import all_failures, all_warnings, collect, print_proofs
    from generator.judge.report import copy_bandwidth, print_table
    from generator.judge.suite import SuiteOptions, run_plan, summary

    def progress(result: Dict[str, Any], done: int, total: int) -> None:
        cached = ", cached" if result.get("cached") else ""
        err.print(
            f"[{done}/{total}] {result['id']}: {result['verdict']} "
            f"({result.get('seconds', 0):.1f} s{cached})",
            markup=False,
        )

    seeds = args.seeds or [args.seed]
    options = SuiteOptions(
        device=device,
        perf=args.perf,
        jobs=args.jobs or default_jobs(device),
        timeout=args.timeout,
        seed=seeds[0],
        extra_seeds=seeds[1:],
        arch=args.arch,
        mojo_runtime=mojo_runtime,
        perf_options=args.perf_options,
        progress=progress,
        cpu_max_elements=args.cpu_max_elements,
        ranks=args.ranks,
        warm=args.warm,
        ray=args.ray,
        ray_temp_dir=args.ray_temp_dir,
        journal=args.journal,
    )
    started = time.time()
    if args.deadline_s is not None:
        options.deadline = started + args.deadline_s
    if args.stop_after_s is not None:
        options.stop_starting = started + args.stop_after_s
    from generator.judge.ray_pool import RayError

    try:
        rows = run_plan(plan, options, cache)
    except RayError as exc:
        raise CommandError(str(exc)) from None
    print_table(rows, console, title)
    proofs = collect(plan, rows)
    print_proofs(proofs, console)
    print_derived(proofs, console)
    built_with = (plan.meta.get("build_machine") or {}) if args.prebuilt else {}
    result_summary = summary(rows, started)
    result_summary["proof_failures"] = all_failures(proofs)
    result_summary["proof_warnings"] = all_warnings(proofs)
    return {
        "meta": {
            "title": title,
            "date": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
            "device": device,
            "perf": args.perf,
            "seed": seeds[0],
            "seeds": seeds,
            "ranks": args.ranks,
            "machine": machine_facts(),
            "mojo_build": built_with.get("mojo") or machine_facts().get("mojo"),
            "copy_gbps": copy_bandwidth(rows),
            "prebuilt": str(args.prebuilt) if args.prebuilt else None,
            "isolation": isolation_facts(device),
            "ray": args.ray,
        },
        "rows": rows,
        "proofs": proofs,
        "summary": result_summary,
    }


def isolation_facts(device: str) -> Dict[str, Any]:
    """Which sandbox and limits the solutions of this run ran under."""
    from generator.isolation.limits import FILE_SIZE_LIMIT, PROCESS_LIMIT, default_memory_limit
    from generator.isolation.probe import probe

    return {
        "sandbox": probe(device=device).describe(),
        "memory_limit_bytes": default_memory_limit(),
        "process_limit": PROCESS_LIMIT,
        "file_size_limit_bytes": FILE_SIZE_LIMIT,
    }


def report_builds(bundle: Any, out: Path, size: int, console: Any) -> int:
    failed = [
        pj for pj in bundle.jobs if not (pj.build or {}).get("ok") and pj.expect != V.BUILD_ERROR
    ]
    for pj in failed:
        message = (pj.build or {}).get("message", "").strip().splitlines()
        console.print(f"build FAILED {pj.id}: {message[0] if message else ''}", markup=False)
    console.print(
        f"bundle {out}/: {len(bundle.jobs)} job(s), {size / 1e6:.1f} MB; run it with "
        f"'chgen test --prebuilt {out}'",
        markup=False,
    )
    return 1 if failed else 0
