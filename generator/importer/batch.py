"""`chgen import TREE --out SPECS_DIR`: every challenge of a tree, refusals grouped by reason.

The pipeline: find the challenge directories (challenges/<difficulty>/<id>_<slug>) -> import each in
the worker pool (isolated.py: child processes, a time limit each) -> write the specs of those that
imported (all at once, after every import has finished, so a refused tree writes nothing half) ->
the table and the JSON report, whose refusals are grouped by the construct that stopped them.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections import Counter, OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional

from generator.importer.isolated import ImportPool, Outcome, refused
from generator.importer.pychanges import CAUSES
from generator.naming import DIFFICULTIES
from generator.spec_docs import write_schema_beside


class TreeError(Exception):
    """The folder given is not a tree of challenges; the message says what was expected."""


def is_tree(path: Path) -> bool:
    """A folder holding challenges/<difficulty>/, or that challenges/ folder itself."""
    return challenges_root(path) is not None


def challenges_root(path: Path) -> Optional[Path]:
    """The challenges/ folder of `path` (or `path` itself), if it holds difficulty folders."""
    for candidate in (path / "challenges", path):
        if candidate.is_dir() and any((candidate / d).is_dir() for d in DIFFICULTIES):
            return candidate
    return None


def find_challenges(path: Path) -> List[Path]:
    """Every challenge directory of the tree, by difficulty then by id."""
    root = challenges_root(path)
    if root is None:
        raise TreeError(
            f"{path} holds no challenges/<easy|medium|hard>/ folder (give a challenge directory "
            "or a tree of them)"
        )
    found = []
    for difficulty in DIFFICULTIES:
        folder = root / difficulty
        if folder.is_dir():
            found.extend(d for d in folder.iterdir() if d.is_dir() and not d.name.startswith("."))

    def order(d: Path):
        head = d.name.split("_", 1)[0]
        return (DIFFICULTIES.index(d.parent.name), int(head) if head.isdigit() else 1 << 30, d.name)

    return sorted(found, key=order)


def label(directory: Path) -> str:
    """`medium/4_reduction`: how a challenge is named in tables and reports."""
    return f"{directory.parent.name}/{directory.name}"


def import_all(
    pool: ImportPool, directories: List[Path], progress: Optional[Callable[[Outcome], None]] = None
) -> List[Outcome]:
    """Every directory through the pool. A spec that `chgen generate` would refuse (its example
    fails the reference) is that challenge's refusal here: the folder written must generate."""
    outcomes = []
    for outcome in pool.run(directories):
        result = outcome.result
        if outcome.imported and result.generate_errors:
            message = f"chgen generate refuses the spec: {result.generate_errors[0]}"
            outcome = refused(outcome.directory, outcome.seconds, message)
        if progress is not None:
            progress(outcome)
        outcomes.append(outcome)
    return outcomes


# ------------------------------------------------------------------------------- writing


def existing_specs(outcomes: List[Outcome], out: Path) -> List[Path]:
    """Specs (or their SVGs) the import would replace."""
    taken = []
    for outcome in outcomes:
        if outcome.imported:
            result = outcome.result
            for name in filter(None, (result.spec_name, result.svg_name)):
                if (out / name).exists():
                    taken.append(out / name)
    return taken


def write_specs(outcomes: List[Outcome], out: Path) -> List[Path]:
    """Every imported spec and its SVG into `out`; each file replaced whole (never half)."""
    written = []
    for outcome in outcomes:
        if not outcome.imported:
            continue
        out.mkdir(parents=True, exist_ok=True)
        result = outcome.result
        files = {result.spec_name: result.spec_text}
        if result.svg_name:
            files[result.svg_name] = result.svg_text + "\n"
        for name, text in files.items():
            handle, temporary = tempfile.mkstemp(dir=out, prefix=f".{name}.")
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                stream.write(text)
            os.replace(temporary, out / name)
            written.append(out / name)
    schema = write_schema_beside(out) if written else None  # what each spec's first line names
    return written + ([schema] if schema else [])


# ------------------------------------------------------------------------------- reporting


@dataclass
class Group:
    reason: str
    challenges: List[str]
    details: List[str]  # the construct's detail per challenge (2 * N, [1, 2], ...) when known


def grouped(outcomes: List[Outcome]) -> List[Group]:
    """Refusals by reason, the most frequent first."""
    groups: "OrderedDict[str, Group]" = OrderedDict()
    for outcome in outcomes:
        if outcome.imported:
            continue
        group = groups.setdefault(outcome.reason, Group(outcome.reason, [], []))
        group.challenges.append(label(outcome.directory))
        if outcome.detail and outcome.detail not in group.details:
            group.details.append(outcome.detail)
    return sorted(groups.values(), key=lambda g: (-len(g.challenges), g.reason))


#: the kinds of page part an import keeps, in the order the summary lists them
PAGE_PARTS = (
    "example",
    "own section",
    "performance bullet",
    "list item",
    "section HTML",
    "description",
)
#: the refusal reason a part of the page gives (report.REASONS); its detail names the part
PAGE_REFUSAL = "a part of the page no spec field keeps"
#: a refusal's detail (the kind page.TextLoss and html.read_page name) -> the part's kind here
_REFUSED_KIND = {
    "example": "example",
    "section": "own section",
    "performance": "performance bullet",
    "requirements": "list item",
    "constraints": "list item",
    "description": "description",
    "svg": "description",
}


def page_tally(outcomes: List[Outcome]) -> Dict[str, Dict[str, int]]:
    """What the import kept of the pages, per kind of part: as values, as the author's text
    (`text_only`: examples kept without values), and refused (challenges refused for that part)."""
    tally = {kind: {"values": 0, "text": 0, "text_only": 0, "refused": 0} for kind in PAGE_PARTS}
    for outcome in outcomes:
        if outcome.imported:
            for kind, counts in outcome.result.page_parts.items():
                for key, count in counts.items():
                    tally.setdefault(kind, {"values": 0, "text": 0, "text_only": 0, "refused": 0})
                    tally[kind][key] += count
        elif outcome.reason == PAGE_REFUSAL:
            kind = _REFUSED_KIND.get(outcome.detail or "", "description")
            tally[kind]["refused"] += 1
    return tally


def examples_phrase(parts: Dict[str, Dict[str, int]]) -> str:
    """`examples: 1 as values, 2 as text (1 without values)`: how one import kept its page's
    examples."""
    n = parts.get("example", {})
    phrase = f"examples: {n.get('values', 0)} as values, {n.get('text', 0)} as text"
    return phrase + (f" ({n['text_only']} without values)" if n.get("text_only") else "")


def page_table(tally: Dict[str, Dict[str, int]]) -> str:
    """The tally as a plain-text table, one row per kind of page part, and how many examples
    kept as text carry values chgen verifies."""
    lines = [
        "page part           as values  as text  refused",
        "------------------  ---------  -------  -------",
    ]
    for kind, n in tally.items():
        lines.append(f"{kind:18}  {n['values']:9}  {n['text']:7}  {n['refused']:7}")
    text = tally.get("example", {}).get("text", 0)
    alone = tally.get("example", {}).get("text_only", 0)
    if text:
        lines.append(
            f"(of the {text} examples kept as text, {text - alone} carry their values too, "
            f"verified at generate time; {alone} are the page's text alone, never verified)"
        )
    return "\n".join(lines) + "\n"


def _imported_entry(outcome: Outcome) -> Dict[str, Any]:
    result = outcome.result
    return {
        "challenge": label(outcome.directory),
        "status": "imported",
        "spec": result.spec_name,
        "seconds": round(outcome.seconds, 2),
        "identical": result.identical,
        "not_equivalent": result.equivalence.problems(),
        "notes": len(result.report.lines()),
        "page_parts": result.page_parts,
        "challenge_py": _py_entry(result.challenge_py),
        "starters": dict(result.starters),
        "tolerated_rules": dict(result.tolerated),
    }


def _py_entry(changes: Any) -> Optional[Dict[str, Any]]:
    if changes is None:
        return None
    return {
        "identical": changes.identical,
        "lines_added": changes.added,
        "lines_removed": changes.removed,
        "summary": changes.summary(),
        "changes": [
            {"cause": c.cause, "why": c.why, "details": c.details} for c in changes.changes
        ],
    }


def _refused_entry(outcome: Outcome) -> Dict[str, Any]:
    return {
        "challenge": label(outcome.directory),
        "status": "refused",
        "reason": outcome.reason,
        "detail": outcome.detail,
        "message": outcome.message,
        "seconds": round(outcome.seconds, 2),
    }


def report_data(outcomes: List[Outcome], seconds: float, jobs: int, timeout: float) -> dict:
    imported = [o for o in outcomes if o.imported]
    return {
        "challenges": len(outcomes),
        "imported": len(imported),
        "refused": len(outcomes) - len(imported),
        "seconds": round(seconds, 2),
        "jobs": jobs,
        "timeout_seconds": timeout,
        "reasons": [
            {"reason": g.reason, "count": len(g.challenges), "details": g.details,
             "challenges": g.challenges}
            for g in grouped(outcomes)
        ],  # fmt: skip
        "page_parts": page_tally(outcomes),
        "results": [_imported_entry(o) if o.imported else _refused_entry(o) for o in outcomes],
        "challenge_py": py_totals(outcomes),
        "starters": starter_totals(outcomes),
    }


def py_totals(outcomes: List[Outcome]) -> Dict[str, Any]:
    """Over the imported challenges: challenge.py files changed, their lines, and per cause the
    challenges it applies to (the most frequent cause first)."""
    results = [o for o in outcomes if o.imported and o.result.challenge_py is not None]
    changed = [o for o in results if not o.result.challenge_py.identical]
    by_cause: "OrderedDict[str, List[str]]" = OrderedDict((c, []) for c in CAUSES)
    for outcome in changed:
        for cause in outcome.result.challenge_py.causes():
            by_cause[cause].append(label(outcome.directory))
    causes = [
        {"cause": cause, "why": CAUSES[cause], "count": len(names), "challenges": names}
        for cause, names in by_cause.items()
        if names
    ]
    return {
        "compared": len(results),
        "changed": len(changed),
        "lines_added": sum(o.result.challenge_py.added for o in changed),
        "lines_removed": sum(o.result.challenge_py.removed for o in changed),
        "by_cause": sorted(causes, key=lambda c: -c["count"]),
    }


def starter_totals(outcomes: List[Outcome]) -> Dict[str, Dict[str, int]]:
    """Per starter file, how many of the imported challenges' starters ended which way."""
    totals: Dict[str, Counter] = {}
    for outcome in outcomes:
        if outcome.imported:
            for name, status in outcome.result.starters.items():
                totals.setdefault(name.removeprefix("starter/"), Counter())[status] += 1
    return {name: dict(sorted(counts.items())) for name, counts in sorted(totals.items())}


def write_report(data: dict, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


def py_table(outcomes: List[Outcome]) -> str:
    """challenge.py's changes by cause: how many challenges each applies to, and why."""
    totals = py_totals(outcomes)
    if not totals["changed"]:
        return ""
    width = max(len(c["cause"]) for c in totals["by_cause"])
    lines = [
        f"challenge.py: {totals['changed']} of {totals['compared']} rewritten, "
        f"+{totals['lines_added']} -{totals['lines_removed']} lines, by cause:",
    ]
    for cause in totals["by_cause"]:
        lines.append(f"  {cause['cause']:{width}}  {cause['count']:4}  {cause['why']}")
    return "\n".join(lines) + "\n"


def starter_table(outcomes: List[Outcome]) -> str:
    """What became of the starters, per file: identical, kept, migrated, chgen's form (why)."""
    totals = starter_totals(outcomes)
    if not totals:
        return ""
    lines = ["starters:"]
    for name, counts in totals.items():
        shown = ", ".join(f"{status} {count}" for status, count in counts.items())
        lines.append(f"  {name:20} {shown}")
    return "\n".join(lines) + "\n"


def table(outcomes: List[Outcome]) -> str:
    """The refusals as a plain-text table: reason, count, the details and the challenges."""
    groups = grouped(outcomes)
    if not groups:
        return ""
    width = max(len(g.reason) for g in groups)
    lines = [f"{'reason':{width}}  count  challenges", f"{'-' * width}  -----  ----------"]
    for g in groups:
        lines.append(f"{g.reason:{width}}  {len(g.challenges):5}  {', '.join(g.challenges)}")
        if g.details:
            lines.append(f"{'':{width}}         e.g. {', '.join(g.details[:6])}")
    return "\n".join(lines) + "\n"
