"""The spec built compared with the original: rendered like any other, its starters kept where no
rule objects, every file compared and the two challenge.py files checked for equivalence."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from generator.challenge.page import describe_losses, text_losses
from generator.example_check import verify_example
from generator.importer import starters
from generator.importer.draft import SpecDraft
from generator.importer.equivalence import Equivalence, compare
from generator.importer.original import OPTIONAL_STARTERS, STARTERS, Read
from generator.importer.page_kept import page_parts, tolerated_reasons
from generator.importer.pychanges import PyChanges, account
from generator.importer.report import ImportFailure, Report
from generator.importer.result import ImportResult
from generator.importer.specfile import built_spec, write_tree
from generator.importer.trace import ChallengeLoadError, load_challenge
from generator.importer.writer import dump_spec
from generator.languages import LANGUAGES
from generator.naming import MODELINE
from generator.render import CORE_BASE, challenge_dir, render_challenge
from generator.spec import SpecErrors


@dataclass
class Finished:
    """An import's outcome before its spec is written: the draft it settled on, the files the
    spec built from it in memory renders, and how they compare with the original's."""

    draft: SpecDraft
    files: Dict[str, str]
    report: Report
    identical: Dict[str, bool]
    equivalence: Equivalence
    generate_errors: List[str]
    py_changes: PyChanges
    starters: Dict[str, str]
    header: List[str]  # the spec's leading comments
    #: per rule the draft tolerates, what it checks and which of the original's files break it
    tolerated_rules: Dict[str, str]


def written_result(read: Read, finished: Finished) -> ImportResult:
    """The import's result with its spec written as YAML: once, for the draft the import settled
    on (the drafts it tried before are never written)."""
    draft = finished.draft
    return ImportResult(
        draft.spec_name,
        dump_spec(draft.data(), finished.header),
        draft.svg_name,
        draft.svg_text,
        finished.report,
        finished.identical,
        finished.equivalence,
        read.names,
        finished.generate_errors,
        page_parts(draft),
        finished.py_changes,
        finished.starters,
        finished.tolerated_rules,
    )


def finish(
    read: Read,
    draft: SpecDraft,
    page_text: Optional[str],
    report: Report,
) -> Finished:
    """Load and render the spec like any other; keep the original starters that differ where
    no rule objects (and render again); compare everything with the originals. With
    `page_text`, the page it renders must show every word that page shows (else the challenge
    is refused, naming what would be lost)."""
    with tempfile.TemporaryDirectory(prefix="chgen-import-") as tmp:
        root = Path(tmp)
        loaded, files = load_and_render(draft)
        outcomes = kept_starters(read, files, challenge_dir(loaded.spec), report)
        kept = {key: o.text for key, o in outcomes.items() if o.text is not None}
        if kept:
            draft.kept_starters = kept
            loaded, files = load_and_render(draft)
        generate_errors: List[str] = []
        # Here, in the import worker (generator/importer/isolated.py: its own process, killed past
        # its time limit), the challenge's own code has already run; its example is verified in
        # the same process rather than in one more torch-loading child per challenge.
        try:
            verify_example(loaded)
        except SpecErrors as exc:
            for error in exc.errors:
                generate_errors.append(error.text)
                report.note(
                    f"chgen generate refuses this spec until it is fixed by hand: {error.text}"
                )
        rendered_dir = write_tree(root / "tree", loaded, files)
        if page_text is not None:
            _refuse_lost_text(page_text, files[f"{rendered_dir}/challenge.html"])
        identical = _compare_files(read.directory, files, rendered_dir)
        py_changes = account(
            (read.directory / "challenge.py").read_text(encoding="utf-8"),
            files[f"{rendered_dir}/challenge.py"],
        )
        if not py_changes.identical:
            report.note(py_changes.summary())
            for line in py_changes.lines():
                report.note(line)
        try:
            generated = load_challenge(
                root / "tree" / rendered_dir / "challenge.py", root / "tree" / CORE_BASE
            )
            equivalence = compare(read.instance, generated, read.names, read.seed, read.run)
        except ChallengeLoadError as exc:
            equivalence = Equivalence([f"the regenerated challenge.py fails: {exc}"], [])
    _report_equivalence(equivalence, report)
    origin = f"{loaded.spec.difficulty}/{read.directory.name}"
    header = [MODELINE[2:], f"{loaded.spec.name}: imported by `chgen import` from {origin}."]
    header += [f"chgen import: {line}" for line in report.lines()]
    return Finished(
        draft,
        files,
        report,
        identical,
        equivalence,
        generate_errors,
        py_changes,
        {o.name: o.status for o in outcomes.values()},
        header,
        tolerated_reasons(read, draft.tolerated_rules or []),
    )


def load_and_render(draft: SpecDraft) -> Tuple[Any, Dict[str, str]]:
    """The spec built in memory, validated and rendered as `chgen generate` would."""
    try:
        loaded = built_spec(draft)
    except SpecErrors as exc:
        raise ImportFailure(
            "the spec written does not load (not representable):\n"
            + "\n".join(e.render() for e in exc.errors)
        ) from None
    try:
        return loaded, render_challenge(loaded)
    except Exception as exc:  # a spec chgen loads but cannot render is a chgen gap
        raise ImportFailure(
            f"chgen cannot render the spec: {type(exc).__name__}: {exc} (not representable)"
        ) from None


def kept_starters(
    read: Read, files: Dict[str, str], rendered_dir: str, report: Report
) -> Dict[str, starters.Kept]:
    """Per language key, what becomes of each original starter (see starters.keep_or_rewrite):
    kept as written where its `text` is set; every starter that differs from chgen's is
    reported, kept or not."""
    from generator.checks.registry import ERROR

    directions = {p.name: p.direction for p in read.params if p.is_tensor}
    outcomes: Dict[str, starters.Kept] = {}
    for lang in LANGUAGES:
        name = f"starter/{lang.starter_name}"
        original = read.directory / name
        generated = files.get(f"{rendered_dir}/{name}")
        if generated is None or not original.is_file():
            if generated is not None and lang.starter_name not in OPTIONAL_STARTERS:
                why = starters.difference(name, None, generated)
                report.note(why)
                outcomes[lang.key] = starters.Kept(name, None, why, "added")
            continue
        old = original.read_text(encoding="utf-8")
        if old == generated:
            outcomes[lang.key] = starters.Kept(name, None, "", "identical")
            continue
        flagged = [
            (f.code, f.message)
            for f in read.findings
            if f.severity == ERROR and f.path == str(original)
        ]
        outcome = starters.keep_or_rewrite(lang, old, generated, flagged, directions)
        report.note(outcome.why)
        outcomes[lang.key] = outcome
    return outcomes


def _refuse_lost_text(original: str, rendered: str) -> None:
    """Refuse a challenge whose page the spec renders without text the original shows."""
    losses = text_losses(original, rendered)
    if losses:
        raise ImportFailure(
            f"challenge.html: the spec would not show all of the page's text: "
            f"{describe_losses(losses)} (page part not representable: {losses[0].kind})"
        )


def _compare_files(directory: Path, files: Dict[str, str], rendered_dir: str) -> Dict[str, bool]:
    """Which rendered files equal their originals."""
    identical: Dict[str, bool] = {}
    for name in ("challenge.py", "challenge.html") + tuple(f"starter/{s}" for s in STARTERS):
        original = directory / name
        generated = files[f"{rendered_dir}/{name}"]
        old = original.read_text(encoding="utf-8") if original.is_file() else None
        if old is None and name.removeprefix("starter/") in OPTIONAL_STARTERS:
            continue
        identical[name] = old == generated
    return identical


def _report_equivalence(equivalence: Equivalence, report: Report) -> None:
    for problem in equivalence.signature:
        report.note(f"not equivalent: {problem}")
    for case in equivalence.cases:
        for problem in case.problems:
            report.note(f"not equivalent: case {case.label}: {problem}")
        for problem in case.reference:
            report.note(f"not equivalent: case {case.label}: {problem}")
        if case.differing and case.label not in report.approximated:
            report.approximate(
                case.label,
                f"case {case.label}: {', '.join(case.differing)} drawn from the same distribution "
                "but not the same values for a fixed seed (the original draws in another order "
                "or with other calls)",
            )
