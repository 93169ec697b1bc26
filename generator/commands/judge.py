"""`chgen judge`: one solution against any LeetGPU-layout challenge."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Dict, Optional

import typer

from generator.commands import CommandFailure
from generator.commands.generate import SPECS_DIR
from generator.commands.options import argument, option, parsed_as, request

#: `chgen judge` and `chgen test`: the Triton interpreter's size limit on the CPU
CPU_MAX_ELEMENTS = typer.Option(
    None,
    "--cpu-max-elements",
    help="On the CPU, skip Triton (interpreted) cases with a tensor over N elements "
    "(default 100000).",
    min=1,
)
#: `chgen judge` and `chgen test`: a multi-GPU challenge on fewer (or more) ranks than its cases'
RANKS = typer.Option(
    None,
    "--ranks",
    help="Run every case of a multi-GPU challenge on N ranks (GPUs 0..N-1) instead of its own; "
    "a mutant that survives there is reported as not provable at N ranks.",
    min=1,
    max=8,
)


@request
class JudgeRequest:
    challenge_dir: Path = argument(..., help="A challenge folder (with challenge.py).")
    solution: Path = argument(
        ..., help="The solution; its suffix names the language (.cu .mojo .pytorch.py ...)."
    )
    device: Optional[str] = option(
        None, "--device", help="cuda or cpu (default: cuda when a GPU is visible)."
    )
    perf: bool = option(False, "--perf", help="Also time the performance case.")
    timeout: float = option(
        60.0, "--timeout", help="Seconds one case may take (first-call compilation included)."
    )
    json_out: Optional[Path] = option(None, "--json", help="Write the result as JSON.")
    seed: Optional[int] = option(
        None, "--seed", help="Seed of the random test inputs (default: a secret one per run)."
    )
    arch: Optional[str] = option(
        None, "--arch", help="CUDA/Mojo target such as sm_90 (default: the GPU's)."
    )
    rerun: bool = option(False, "--rerun", help="Ignore cached results.")
    specs_dir: Path = option(SPECS_DIR, "--specs", help="Where case names are looked up.")
    memory_limit: Optional[float] = option(
        None, "--memory-limit", help="GiB the solution's processes may hold (default: 1/4 of RAM)."
    )
    no_sandbox: bool = option(
        False, "--no-sandbox", help="Run the solution without bubblewrap (limits still apply)."
    )
    cpu_max_elements: Optional[int] = parsed_as(None, CPU_MAX_ELEMENTS)
    ranks: Optional[int] = parsed_as(None, RANKS)


@dataclass
class JudgeResult:
    #: the judge's result: verdict, message, one entry per case, timing
    result: Dict[str, Any]
    #: 0 only when every case passed
    exit_code: int


def run_judge(req: JudgeRequest) -> JudgeResult:
    from generator.judge import verdicts
    from generator.judge.commands import CommandError, judge_solution

    settings = asdict(req)
    sandbox = not settings.pop("no_sandbox")
    try:
        result = judge_solution(**settings, sandbox=sandbox)
    except CommandError as exc:
        raise CommandFailure(f"error: {exc}") from None
    return JudgeResult(result, verdicts.exit_code(result["verdict"]))
