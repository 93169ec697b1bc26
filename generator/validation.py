"""A rendered challenge checked as `chgen check --formatters --deep` checks it, each finding moved
to the spec line that produced it.

`chgen generate` writes nothing that `chgen check` would reject: the HTML/TeX rules, the starter and
challenge.py rules, the formatter rules (flake8 included) and the deep rules (every case generated
and run through the reference on the CPU) run on the rendered files before the tree is touched. A
finding in a generated file is reported where the author can fix it: the description, requirement
or constraint whose text the line shows, the case the line or the message names, the reference, a
helper. The deep rules import the rendered challenge.py, which holds the spec's reference: this runs
in the spec-code sandbox's child (generator/example_runner.py), never in chgen's own process.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from generator.checks.report import DEFAULT_CASES, Options, Report
from generator.diagnostic import ERROR, Diagnostic, Position
from generator.languages import BY_KEY
from generator.spec.read import LoadedSpec
from generator.spec.yamlpos import PathKey, block_line

#: a deep finding that names the case it happened in ("... on functional case 3", "(in the
#: functional case 3, ...)")
_CASE_RE = re.compile(r"functional case (\d+)")
#: D002's words for a size the performance bullet does not list
_OMITTED_RE = re.compile(r"the bullet omits size ")
#: fixes that fit a spec, for the rules whose own fix speaks of a challenge.py
_SPEC_FIXES = {
    "D005": "fix the reference (it runs on the CPU here), or the case's sizes or inputs",
}
#: a rendered line shorter than this says too little to be traced to one spec text
_MIN_TRACE = 4


def formatter_findings(tree_root: Path, challenges: Sequence[str]) -> Dict[str, List[Diagnostic]]:
    """The formatter rules (black/isort, flake8, clang-format, mblack) on every challenge rendered
    under `tree_root` at once, by challenge folder: flake8 and clang-format then start once for
    all of them, not once per challenge. A finding of no one challenge (flake8 could not run)
    belongs to each."""
    from generator.checks import formatters
    from generator.checks.source import ChallengeDir, Tree

    report = Report(Options(deep=True, formatters=True))
    tree = Tree(tree_root, "")
    formatters.check([ChallengeDir(tree_root / c, c, tree) for c in challenges], report)
    found: Dict[str, List[Diagnostic]] = {c: [] for c in challenges}
    for finding in report.findings:
        owners = [c for c in challenges if finding.path.startswith(f"{c}/")] or list(challenges)
        for owner in owners:
            found[owner].append(finding)
    return found


def check_rendered(
    loaded: LoadedSpec,
    tree_root: Path,
    challenge: str,
    formatted: Optional[List[Diagnostic]] = None,
) -> List[Diagnostic]:
    """The errors `chgen check --formatters --deep` finds in the challenge rendered under
    `tree_root`/`challenge` (a tree holding the base class too), at the spec's lines;
    `formatted`: the formatter rules' findings on it, when formatter_findings found them."""
    from generator.checks import challenge_py, deep, formatters, html, layout, starters
    from generator.checks.source import ChallengeDir, Tree

    cases = tuple(loaded.spec.expected_cases or DEFAULT_CASES)
    report = Report(Options(deep=True, formatters=True, cases=cases))  # type: ignore[arg-type]
    ch = ChallengeDir(tree_root / challenge, challenge, Tree(tree_root, ""))
    layout.check(ch, report, layout.IdIndex(None))
    model = challenge_py.check(ch, report)
    starters.check(ch, model, report)
    html.check(ch, model, report)
    formatters.check_whitespace(ch, report)
    if formatted is None:
        formatters.check([ch], report)
    else:
        report.findings.extend(formatted)
    deep.check_here([ch], {ch.path: model}, report)  # already in the spec-code sandbox
    # L006: a starter left out was not asked for (--languages); the tree keeps its own
    tolerated = set(loaded.spec.tolerated_rules) | {"L006"}
    found = [
        f
        for f in report.sorted()
        if f.severity == ERROR and not _chosen(loaded, f) and f.code not in tolerated
    ]
    return [spec_error(loaded, ch.path, challenge, finding) for finding in found]


def _chosen(loaded: LoadedSpec, finding: Diagnostic) -> bool:
    """A D002 for a size the spec's `performance.shown` leaves out of the bullet on purpose."""
    shown = loaded.spec.performance.shown
    match = _OMITTED_RE.match(finding.message)
    return finding.code == "D002" and shown is not None and bool(match)


def spec_error(loaded: LoadedSpec, folder: Path, challenge: str, finding: Diagnostic) -> Diagnostic:
    """One finding in a rendered file, at the spec node whose text (or case) produced it."""
    name = finding.path[len(challenge) :].lstrip("/") or finding.path
    try:
        lines = (folder / name).read_text().splitlines()
    except OSError:
        lines = []
    shown = lines[finding.line - 1] if 0 < finding.line <= len(lines) else ""
    if finding.code in JAX_RULES and loaded.spec.reference_jax is not None:
        position = _jax_position(loaded, shown)
    else:
        position = (
            _case_position(loaded, finding.message)
            or _heading_position(loaded, name, shown, finding.message)
            or _text_position(loaded, name, shown)
        )
    message, hint = _in_spec_words(loaded, finding)
    where = f"it renders into {name} line {finding.line}"
    return Diagnostic(
        position,
        message,
        f"{hint}; {where}" if hint else f"fix it in the spec: {where}",
        code=finding.code,
    )


def _in_spec_words(loaded: LoadedSpec, finding: Diagnostic) -> Tuple[str, str]:
    """The finding's message as the spec says it: a functional case by its name (the rules count
    challenge.py's cases from 0), and a fix that fits a spec in place of the rule's own
    (D005's `use ops that run on every device` is about a challenge.py run on the CPU)."""
    from generator.checks.registry import RULES

    cases = loaded.spec.functional

    def named(match: "re.Match[str]") -> str:
        index = int(match.group(1))
        if index >= len(cases):
            return match.group(0)
        return f"case {cases[index].name!r} (functional case {index + 1} of {len(cases)})"

    message = _CASE_RE.sub(named, finding.message)
    hint = _SPEC_FIXES.get(finding.code, "")
    fix = RULES[finding.code].fix if finding.code in RULES else ""
    if hint and fix and message.endswith(f"; {fix}"):
        message = message[: -len(f"; {fix}")]
    return message, hint


#: the rules about reference_impl_jax: reported at the spec's reference_jax
JAX_RULES = ("P019", "D008")


def _jax_position(loaded: LoadedSpec, shown: str) -> Position:
    """The reference_jax line a finding's line shows (where it raised), else its first line."""
    needle = shown.strip()
    text = loaded.spec.reference_jax or ""
    own = text.splitlines()
    if len(needle) >= _MIN_TRACE:
        for k, line in enumerate(own):
            if line.strip() and needle == line.strip():
                return _line_within(loaded, ("reference_jax",), k, len(own))
    return loaded.position("reference_jax")


def _case_position(loaded: LoadedSpec, message: str) -> Optional[Position]:
    match = _CASE_RE.search(message)
    if match is None or int(match.group(1)) >= len(loaded.spec.functional):
        return None
    index = int(match.group(1))
    case = loaded.spec.functional[index]
    return loaded.position("functional", index, "inputs" if case.inputs else "name")


def _heading_position(
    loaded: LoadedSpec, name: str, shown: str, message: str
) -> Optional[Position]:
    """A finding on an <h2> line, or about a section the page lacks, at the spec node that
    writes that heading: an example's title (or the example), one of `sections`' titles, the
    requirements or the constraints."""
    if not name.endswith(".html"):
        return None
    from generator.challenge.page import heading_title, missing_section_title
    from generator.page.vocabulary import CONSTRAINTS, EXAMPLE, REQUIREMENTS, example_titles

    spec = loaded.spec
    missing = missing_section_title(message)
    title = heading_title(shown) or missing
    if title is None:
        return None
    titles = example_titles([ex.title for ex in spec.examples])
    keys: List[Tuple[str, PathKey]] = [
        (text, ("examples", i, "title") if ex.title else ("examples", i))
        for i, (text, ex) in enumerate(zip(titles, spec.examples))
    ]
    keys += [(s.title, ("sections", j, "title")) for j, s in enumerate(spec.sections)]
    keys += [(REQUIREMENTS, ("requirements",)), (CONSTRAINTS, ("constraints",))]
    for text, key in keys:
        if text == title or (missing and text.rstrip(":").startswith(title)):
            return loaded.position(*key)
    if missing and title.startswith(EXAMPLE):
        return loaded.position("examples", 0)
    return None


def _candidates(loaded: LoadedSpec, name: str) -> Iterable[Tuple[PathKey, str]]:
    """The spec texts a line of `name` may show, most specific first."""
    spec = loaded.spec
    if name.endswith(".html"):
        yield ("description",), spec.description
        if isinstance(spec.requirements, str):
            yield ("requirements",), spec.requirements
        for j, text in enumerate(spec.requirement_items):
            yield ("requirements", j), text
        for j, text in enumerate(spec.constraints):
            yield ("constraints", j), text
        for i, example in enumerate(spec.examples):
            for field in ("explanation", "title", "display"):
                text = getattr(example, field)
                if text:
                    yield ("examples", i, field), text
        if spec.svg and spec.svg.lstrip().startswith("<"):
            yield ("svg",), spec.svg
        return
    if name == "challenge.py":
        yield from _code_inputs(spec)
        for i, case in enumerate(spec.functional):
            if case.note:
                yield ("functional", i, "note"), case.note
        yield ("reference",), spec.reference
        if spec.reference_jax:
            yield ("reference_jax",), spec.reference_jax
        if spec.reference_helpers:
            yield ("reference_helpers",), spec.reference_helpers
        return
    for language, code in spec.starter_helpers.items():
        yield ("starter_helpers", language), code
    for language, code in spec.kept_starters.items():
        if name.endswith(f"/{BY_KEY[language].starter_name}"):
            yield ("kept_starters", language), code


def _code_inputs(spec) -> Iterable[Tuple[PathKey, str]]:
    """The code inputs, each where it is written: a line of challenge.py may be one of theirs."""
    groups: List[Tuple[PathKey, dict]] = [
        (("examples", i, "inputs"), ex.drawn) for i, ex in enumerate(spec.examples)
    ]
    groups += [(("functional", i, "inputs"), c.inputs) for i, c in enumerate(spec.functional)]
    groups += [(("defaults", "inputs"), spec.defaults.inputs)]
    groups += [(("performance", "inputs"), spec.performance.inputs)]
    for where, forms in groups:
        for name, form in forms.items():
            if form.kind == "code":
                yield where + (name, "code"), form.code


def _fallback(name: str) -> PathKey:
    if name.endswith(".html"):
        return ("description",)
    return ("reference",) if name == "challenge.py" else ("signature",)


def _text_position(loaded: LoadedSpec, name: str, shown: str) -> Position:
    """Where the spec writes the text that rendered line `shown` holds (its own line within a
    block scalar), else the section that file comes from."""
    needle = shown.strip()
    if len(needle) >= _MIN_TRACE:
        for key, text in _candidates(loaded, name):
            own = text.splitlines()
            for k, line in enumerate(own):
                part = line.strip()
                if needle in line or (len(part) >= 2 * _MIN_TRACE and part in needle):
                    return _line_within(loaded, key, k, len(own))
    return loaded.position(*_fallback(name))


def _line_within(loaded: LoadedSpec, key: PathKey, k: int, count: int) -> Position:
    """Line `k` of the text at `key` (its own line within a block scalar)."""
    position = loaded.position(*key)
    try:
        written = loaded.path.read_text()
    except OSError:
        return position
    return block_line(written, position, k) if count else position
