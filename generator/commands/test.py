"""`chgen test`: every starter, solution and mutant of our challenges (or of any tree)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any, List, Optional

from generator.commands import CommandFailure
from generator.commands.generate import SPECS_DIR, TREE_DIR
from generator.commands.judge import CPU_MAX_ELEMENTS, RANKS
from generator.commands.options import argument, option, parsed_as, request

#: generator/judge/derived.py's default (the CLI imports no judge module at start-up)
DEFAULT_MUTANTS = 12


@request
class TestRequest:
    """The options of `chgen test`; those named as a field of the judge suite's TestArgs are
    handed to it as they are (run_test), the others are read into it."""

    __test__ = False  # not a test class, whatever pytest thinks of its name

    specs: List[str] = argument(None, help="Spec files or ids (default: every spec).")
    device: Optional[str] = option(None, "--device", help="cuda or cpu (default: auto).")
    perf: bool = option(False, "--perf", help="Time solutions and the spec's baselines.")
    build_only: bool = option(
        False, "--build-only", help="Build everything into --out for another machine to run."
    )
    out: Optional[Path] = option(None, "--out", help="Bundle folder to write.")
    prebuilt: Optional[Path] = option(
        None, "--prebuilt", help="Run a bundle made by --build-only (needs no spec model)."
    )
    json_out: Optional[Path] = option(None, "--json", help="JSON report path.")
    markdown_out: Optional[Path] = option(None, "--markdown", help="Markdown report.")
    jobs: Optional[int] = option(None, "--jobs", "-j", help="Parallel correctness runs.")
    timeout: float = option(60.0, "--timeout", help="Seconds one case may take.")
    seed: int = option(0, "--seed", help="Seed of the random test inputs.")
    seeds: Optional[str] = option(
        None, "--seeds", help="Seeds every solution must pass: a list (0,1,2,3,4) or a count (5)."
    )
    kinds: List[str] = option(
        [],
        "--kind",
        help="Only these jobs: starter, build (a starter for each GPU the platform lists), "
        "solution, baseline, mutant, reference, derived, reference_solution.",
    )
    arch: Optional[str] = option(None, "--arch", help="CUDA/Mojo target, e.g. sm_90.")
    rerun: bool = option(False, "--rerun", help="Ignore cached results.")
    specs_dir: Optional[Path] = option(None, "--specs", help="Folder of specs (default: specs/).")
    tree_dir: Optional[Path] = option(
        None,
        "--tree",
        help="The challenge tree (default: generated/). Without --specs: every challenge of "
        "the tree (or those named by id or directory), read from its files, no spec needed.",
    )
    solutions_dir: Path = option(Path("solutions"), "--solutions", help="Solutions.")
    mutants: int = option(
        DEFAULT_MUTANTS,
        "--mutants",
        help="Mistakes derived from each reference_impl (besides the generic wrong outputs).",
    )
    warm: bool = option(
        False,
        "--warm",
        help="Correctness runs on warm workers (torch imported once per worker, jobs streamed).",
    )
    derive: bool = option(
        True,
        "--derive/--no-derive",
        help="Also judge the reference as a solution, audit the tolerance and judge the "
        "derived mistakes.",
    )
    ray: Optional[str] = option(
        None,
        "--ray",
        metavar="ADDRESS",
        help="Send every job to this Ray cluster ('local': start one here for the run).",
    )
    cpu_max_elements: Optional[int] = parsed_as(None, CPU_MAX_ELEMENTS)
    ranks: Optional[int] = parsed_as(None, RANKS)


@dataclass
class TestResult:
    __test__ = False

    exit_code: int


def suite_args(req: TestRequest) -> Any:
    """The judge suite's settings (generator/judge/commands.py TestArgs) for a request."""
    from generator.judge.commands import CommandError, TestArgs, parse_seeds

    try:
        seeds = parse_seeds(req.seeds, req.seed)
    except CommandError as exc:
        raise CommandFailure(f"error: {exc}") from None
    names = {f.name for f in dataclasses.fields(TestArgs)}
    given = {k: v for k, v in dataclasses.asdict(req).items() if k in names}
    given.update(
        specs=list(req.specs or []),
        kinds=list(req.kinds or []),
        specs_dir=req.specs_dir or SPECS_DIR,
        tree_dir=req.tree_dir or TREE_DIR,
        tree_mode=req.tree_dir is not None and req.specs_dir is None,
        mutants=req.mutants if req.derive else None,
        seeds=seeds,
    )
    return TestArgs(**given)


def run_test(req: TestRequest, out: Any, err: Any) -> TestResult:
    """The suite, its tables and progress printed on `out` and `err` as it runs (a long run
    shows where it is); spec errors raise SpecErrors."""
    from generator.judge.commands import CommandError, test_command

    args = suite_args(req)
    try:
        return TestResult(test_command(args, out, err))
    except CommandError as exc:
        raise CommandFailure(f"error: {exc}") from None
