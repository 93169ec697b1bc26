"""`chgen check`: the set's rules on challenges, trees and specs (static; --deep runs code)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional

from generator import extras
from generator.commands import CommandFailure
from generator.commands.generate import TREE_DIR
from generator.commands.options import argument, option, request


@request
class CheckRequest:
    paths: List[Path] = argument(
        None, help="Spec files, challenge directories, or trees holding challenges/."
    )
    deep: bool = option(
        False, "--deep", help="Also import each challenge.py on the CPU and run its generators."
    )
    formatters: bool = option(
        False, "--formatters", help="Also run black/isort, flake8, clang-format and mojo format."
    )
    output_format: str = option("human", "--format", help="human or json.")
    select: List[str] = option([], "--select", help="Only these codes or prefixes (S, H00).")
    ignore: List[str] = option([], "--ignore", help="Skip these codes or prefixes.")
    against: Optional[Path] = option(
        None, "--against", help="Another tree whose ids a new challenge must not reuse."
    )
    cases: str = option(
        "",
        "--cases",
        help="Expected functional case count, MIN:MAX (default: the public set's 4:15).",
    )
    generated: Path = option(TREE_DIR, "--tree", help="Tree that specs are compared with.")
    jobs: int = option(0, "--jobs", help="Processes for the static rules (0: by tree size).")
    all_challenges: bool = option(
        False,
        "--all",
        help="In a tree chgen manages (.chgen/manifest.json), count the findings of its challenges "
        "that no spec owns too (by default they are listed apart and do not fail the check).",
    )
    specs_dir: Optional[Path] = option(
        None,
        "--specs",
        help="Folder of the specs that own a managed tree's challenges, for their tolerated_rules "
        "(default: the tree's specs/, else the specs/ beside it).",
    )
    list_rules: bool = option(False, "--list-rules", help="Print every rule and exit.")


@dataclass
class CheckResult:
    #: the report as the chosen format writes it
    text: str
    errors: int
    #: --list-rules: one line per rule, and nothing checked
    rules: Optional[List[str]] = None


def run_check(req: CheckRequest) -> CheckResult:
    from generator.checks import registry, runner
    from generator.checks.report import DEFAULT_CASES, Options

    if req.list_rules:
        rules = registry.RULES.values()
        lines = [f"{r.code} {r.severity:7} {r.tier:10} {r.summary}" for r in rules]
        return CheckResult("", 0, lines)
    if req.output_format not in ("human", "json"):
        raise CommandFailure(f"error: --format is 'human' or 'json', not {req.output_format!r}", 2)
    chosen, skipped = registry.parse_codes(req.select), registry.parse_codes(req.ignore)
    unknown = registry.unknown_codes(chosen + skipped)
    if unknown:
        raise CommandFailure(
            f"error: no rule code starts with {', '.join(unknown)} (see --list-rules)", 2
        )
    low, _, high = (req.cases or "{}:{}".format(*DEFAULT_CASES)).partition(":")
    if not (low.isdigit() and high.isdigit() and int(low) <= int(high)):
        raise CommandFailure(f"error: --cases takes MIN:MAX, e.g. 4:15, not {req.cases!r}", 2)
    against = req.against
    if (
        against is not None
        and not (against / "challenges").is_dir()
        and against.name != "challenges"
    ):
        raise CommandFailure(f"error: --against {against} holds no challenges/ folder", 2)
    if req.formatters:
        extras.require("formatters", "chgen check --formatters")
    if req.deep:
        extras.require("judge", "chgen check --deep")
    options = Options(
        req.deep,
        req.formatters,
        chosen,
        skipped,
        against,
        (int(low), int(high)),
        req.generated,
        req.jobs,
        managed=True,
        count_unmanaged=req.all_challenges,
        specs=req.specs_dir,
    )
    try:
        result = runner.run(list(req.paths or runner.default_paths()), options)
    except runner.TargetError as exc:
        raise CommandFailure(f"error: {exc}", 2) from None
    render = runner.render_json if req.output_format == "json" else runner.render_human
    return CheckResult(render(result), result.errors)
