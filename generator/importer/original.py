"""Reading the original challenge: where it sits in its tree, its source, a loaded instance and
its traced cases, the signature and its sizes, and what `chgen check` finds in it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, List, Optional, Tuple

from generator.checks.report import Options
from generator.checks.runner import run as run_checks
from generator.importer import infer, pyast
from generator.importer.infer import ParamInfo
from generator.importer.report import ImportFailure, Report
from generator.importer.trace import ChallengeLoadError, Run, load_challenge, run_cases
from generator.languages import LANGUAGES
from generator.naming import DIFFICULTIES, SLUG_RE
from generator.resources import template_dir
from generator.spec.derived import size_names_among

DIR_RE = re.compile(r"^(\d+)_(\w+)$")


STARTERS = tuple(lang.starter_name for lang in LANGUAGES)


#: starters a tree may lack without that being a difference (languages newer than the tree)
OPTIONAL_STARTERS = {lang.starter_name for lang in LANGUAGES if not lang.required_in_tree}


def locate(directory: Path, report: Report) -> Tuple[int, str, str]:
    match = DIR_RE.match(directory.name)
    if not match:
        raise ImportFailure(f"{directory.name!r} is not named <id>_<slug>")
    difficulty = directory.parent.name.lower()
    if difficulty not in DIFFICULTIES:
        raise ImportFailure(
            f"the folder above {directory.name} is {directory.parent.name!r}, not easy, medium or "
            "hard: the difficulty comes from it"
        )
    # a slug may start with a digit (public 48); anything else is rewritten as lowercase words
    slug = match.group(2) if SLUG_RE.match(match.group(2)) else infer.slugify(match.group(2))
    if slug != match.group(2):
        report.note(
            f"directory slug {match.group(2)!r} is written {slug!r} (lowercase words); the spec "
            f"keeps the directory's name ({directory.name})"
        )
    return int(match.group(1)), slug, difficulty


def base_file(directory: Path) -> Path:
    """The tree's own base class (challenges/core), else chgen's."""
    own = directory.parent.parent / "core" / "challenge_base.py"
    return own if own.is_file() else template_dir() / "core" / "challenge_base.py"


@dataclass
class Read:
    """What reading a challenge directory gave, before the spec is assembled."""

    directory: Path
    source: pyast.ChallengeSource
    instance: Any
    run: Run
    params: List[ParamInfo]
    names: List[str]
    notes: List[Optional[str]]
    sizes: List[str]
    seed: int
    findings: List[Any]  # what `chgen check` (static) finds in the original


def _jax_reference_findings(directory: Path) -> List[Any]:
    """D008 on the original: its reference_impl_jax against its reference_impl on every case, on
    JAX's CPU backend, as `chgen check --deep` runs it. Here, in the import worker (its own
    sandboxed process), where the challenge's code already runs; JAX is imported only for a
    challenge that has the method."""
    from generator.challenge.pyfile import read_challenge_py
    from generator.checks import deep
    from generator.checks.report import Report as CheckReport
    from generator.checks.source import ChallengeDir

    ch = ChallengeDir(directory, str(directory))
    report = CheckReport(Options(deep=True, select=("D008",)))
    source = ch.file("challenge.py")
    if source is not None:
        deep.check_here([ch], {ch.path: read_challenge_py(source.text, source.display)}, report)
    return report.findings


def read_original(directory: Path, seed: int, report: Report) -> Read:
    """Source, a loaded instance and its traced cases, the signature and its shapes."""
    try:
        source = pyast.read_source((directory / "challenge.py").read_text(encoding="utf-8"))
    except pyast.SourceError as exc:
        raise ImportFailure(str(exc)) from None
    try:
        instance = load_challenge(directory / "challenge.py", base_file(directory))
        run = run_cases(instance, seed, record=True)
    except ChallengeLoadError as exc:
        raise ImportFailure(str(exc)) from None
    params = infer.read_signature(source, instance, run, report)
    names, notes = infer.name_cases(source.functional, run.functional)
    labelled = [("example", run.example), *zip(names, run.functional)]
    labelled.append(("performance", run.performance))
    infer.infer_shapes(params, labelled, source.reference.shape_hints)
    known = {p.name for p in params}
    for label, case in labelled:
        extra = sorted(set(case.values) - known)
        if extra:
            report.note(
                f"case {label} passes {', '.join(extra)}, which solve does not take; dropped"
            )
    every = [shape for p in params if p.is_tensor for shape in [p.shape, *p.case_shapes.values()]]
    sizes = list(size_names_among(params, every))
    findings = run_checks([directory], Options()).findings
    if source.reference_jax is not None:
        findings += _jax_reference_findings(directory)
    return Read(directory, source, instance, run, params, names, notes, sizes, seed, findings)
