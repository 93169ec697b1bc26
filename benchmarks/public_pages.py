"""Counts, over a clone of the public challenge set: how many challenges import, why the others are
refused, and how many regenerated challenge.html pages are byte-identical to the originals, overall
and among the pages that pass chgen check's HTML rules (no H error: the pages that follow the
conventions). Each challenge is imported as `chgen import` does, an example whose page block chgen
does not write from its values keeping the page's text as its `display`: a page identical only so
is counted apart ("through a display override"); the headline figures count the pages identical
without one. A page whose example shows other values than its challenge.py gives (the set's
drift) is marked "(example drift)".

    python benchmarks/public_pages.py <clone>/challenges [--only 26,45,80] [-v] [--diff]

Prints counts and reasons only (the set's licence allows no copies of its files or derived trees).
"""

from __future__ import annotations

import argparse
import difflib
import re
import sys
import tempfile
from collections import Counter
from pathlib import Path

import yaml

from generator.checks.registry import ERROR
from generator.checks.report import Options
from generator.checks.runner import run as run_checks
from generator.importer import ImportFailure, import_challenge
from generator.importer.html import read_page
from generator.render import render_challenge
from generator.spec import load_spec

#: refusal messages grouped by the construct they name
REASONS = [
    ("derived shape", re.compile(r"derived shapes|shape expression")),
    ("rank > 2 example", re.compile(r"-D; challenge.html shows")),
    ("rank differs between cases", re.compile(r"has rank \[")),
    ("example over 4,096 elements", re.compile(r"literal data of at most")),
    ("spec does not load", re.compile(r"does not load")),
]


#: the importer's note for an example whose page shows other outputs than the reference computes
SHOWN_OTHERWISE = re.compile(r"example( \d+)?: the page shows ")


def reason_of(message: str) -> str:
    for label, pattern in REASONS:
        if pattern.search(message):
            return label
    return "other: " + message.splitlines()[0][:90]


def challenge_dirs(root: Path):
    for difficulty in ("easy", "medium", "hard"):
        for path in sorted((root / difficulty).glob("*_*")):
            if (path / "challenge.py").is_file():
                yield path


def html_clean(root: Path) -> set:
    """Names of the challenge directories whose page has no H error."""
    findings = run_checks([root], Options(select=["H"])).findings
    flagged = {Path(f.path).parent.name for f in findings if f.severity == ERROR}
    return {path.name for path in challenge_dirs(root)} - flagged


def page_diff(path: Path, result) -> str:
    """The unified diff from the public page to the page regenerated from the imported spec (shown
    on this terminal only, never written)."""
    with tempfile.TemporaryDirectory(prefix="chgen-pages-") as tmp:
        root = Path(tmp)
        spec_path = root / result.spec_name
        result.write(spec_path)
        files = render_challenge(load_spec(spec_path, root))
    page = next(text for name, text in files.items() if name.endswith("/challenge.html"))
    original = (path / "challenge.html").read_text(encoding="utf-8")
    lines = difflib.unified_diff(
        original.splitlines(keepends=True),
        page.splitlines(keepends=True),
        f"public/{path.name}/challenge.html",
        f"regenerated/{path.name}/challenge.html",
    )
    return "".join(lines)


def uses_display(result) -> bool:
    """Whether an example of the imported spec shows its page's text instead of its values."""
    data = yaml.safe_load(result.spec_text)
    examples = data.get("examples") or [data.get("example") or {}]
    return any("display" in example for example in examples)


def example_drift(path: Path, result) -> bool:
    """Whether the page's first example shows other inputs than generate_example_test gives, or
    an example shows other outputs than the reference computes (the public set's drift: its page
    and its challenge.py were edited apart), so no rendering of the spec can write that page."""
    data = yaml.safe_load(result.spec_text)
    example = (data.get("examples") or [data.get("example") or {}])[0]
    given = {**example.get("scalars", {}), **example.get("inputs", {})}
    names = [p["name"] for p in data["signature"]]
    outputs = list(example.get("outputs", {}))
    page = read_page((path / "challenge.html").read_text(encoding="utf-8"), outputs, names)
    if not page.examples:
        return False
    found = page.examples[0].shown.found
    for name, value in given.items():
        if isinstance(value, dict):  # drawn ({normal: ...}): no literal values to compare
            continue
        for shown in found.get((name, False), []):
            values = [v for v, _ in shown.values]
            if values != flat(value):
                return True
    return any(SHOWN_OTHERWISE.match(note) for note in result.report.lines())


def flat(value) -> list:
    return [float(x) for v in value for x in flat(v)] if isinstance(value, list) else [float(value)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tree", type=Path, help="a clone's challenges/ folder")
    parser.add_argument("--only", default="", help="comma-separated challenge ids")
    parser.add_argument("-v", "--verbose", action="store_true", help="name each challenge")
    parser.add_argument(
        "--diff", action="store_true", help="show how each differing page differs (unified diff)"
    )
    args = parser.parse_args()
    root = args.tree / "challenges" if (args.tree / "challenges").is_dir() else args.tree
    only = {int(i) for i in args.only.split(",") if i}
    clean = html_clean(root)
    refused: Counter = Counter()
    imported = identical = clean_identical = overridden = clean_overridden = 0
    drifted: Counter = Counter()  # "display" / "differs" -> clean pages whose example drifted
    clean_seen = 0
    for path in challenge_dirs(root):
        if only and int(path.name.split("_")[0]) not in only:
            continue
        clean_seen += path.name in clean
        try:
            result = import_challenge(path)
        except ImportFailure as exc:
            refused[reason_of(str(exc))] += 1
            if args.verbose:
                print(f"refused  {path.name}: {reason_of(str(exc))}")
            continue
        except Exception as exc:  # a chgen bug: count it, keep going
            refused[f"crash: {type(exc).__name__}"] += 1
            if args.verbose:
                print(f"crash    {path.name}: {type(exc).__name__}: {exc}")
            continue
        imported += 1
        same = result.identical["challenge.html"]
        through_display = same and uses_display(result)
        same = same and not through_display
        identical += same
        clean_identical += same and path.name in clean
        overridden += through_display
        clean_overridden += through_display and path.name in clean
        verdict = "same" if same else "display" if through_display else "differs"
        drift = not same and example_drift(path, result)
        drifted[verdict] += drift and path.name in clean
        if args.verbose:
            print(f"{verdict:8s} {path.name}{'  (example drift)' if drift else ''}")
        if args.diff and not same:
            print(page_diff(path, result), end="")
    total = imported + sum(refused.values())
    print(f"challenges: {total}, imported: {imported}, pages byte-identical: {identical}")
    share = 100 * clean_identical / clean_seen if clean_seen else 0.0
    print(
        f"pages passing the HTML rules: {clean_seen}, byte-identical: {clean_identical} "
        f"({share:.0f}%); identical through a display override: {clean_overridden} more "
        f"({overridden} in all)"
    )
    print(
        f"  of the clean pages not identical, the public example differs from "
        f"generate_example_test (drift): {drifted['display']} through a display override, "
        f"{drifted['differs']} differing"
    )
    for reason, count in refused.most_common():
        print(f"  refused {count:3d}  {reason}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
