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
from typing import Iterable, List, Optional, Tuple

from generator.checks.registry import ERROR, Finding
from generator.checks.report import DEFAULT_CASES, Options, Report
from generator.languages import BY_KEY
from generator.spec.loader import LoadedSpec
from generator.spec.yamlpos import PathKey, Position, SpecError

#: a deep finding that names the case it happened in ("... on functional case 3", "(in the
#: functional case 3, ...)")
_CASE_RE = re.compile(r"functional case (\d+)")
#: D002's words for a size the performance bullet does not list
_OMITTED_RE = re.compile(r"the bullet omits size ")
#: a rendered line shorter than this says too little to be traced to one spec text
_MIN_TRACE = 4


def check_rendered(loaded: LoadedSpec, tree_root: Path, challenge: str) -> List[SpecError]:
    """The errors `chgen check --formatters --deep` finds in the challenge rendered under
    `tree_root`/`challenge` (a tree holding the base class too), at the spec's lines."""
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
    formatters.check([ch], report)
    deep.check_here([ch], {ch.path: model}, report)  # already in the spec-code sandbox
    tolerated = set(loaded.spec.tolerated_rules)
    found = [
        f
        for f in report.sorted()
        if f.severity == ERROR and not _chosen(loaded, f) and f.code not in tolerated
    ]
    return [spec_error(loaded, ch.path, challenge, finding) for finding in found]


def _chosen(loaded: LoadedSpec, finding: Finding) -> bool:
    """A D002 for a size the spec's `performance.shown` leaves out of the bullet on purpose."""
    shown = loaded.spec.performance.shown
    match = _OMITTED_RE.match(finding.message)
    return finding.code == "D002" and shown is not None and bool(match)


def spec_error(loaded: LoadedSpec, folder: Path, challenge: str, finding: Finding) -> SpecError:
    """One finding in a rendered file, at the spec node whose text (or case) produced it."""
    name = finding.path[len(challenge) :].lstrip("/") or finding.path
    try:
        lines = (folder / name).read_text().splitlines()
    except OSError:
        lines = []
    shown = lines[finding.line - 1] if 0 < finding.line <= len(lines) else ""
    position = _case_position(loaded, finding.message) or _text_position(loaded, name, shown)
    return SpecError(
        position,
        f"{finding.code} {finding.message}",
        f"fix it in the spec: it renders into {name} line {finding.line}",
    )


def _case_position(loaded: LoadedSpec, message: str) -> Optional[Position]:
    match = _CASE_RE.search(message)
    if match is None or int(match.group(1)) >= len(loaded.spec.functional):
        return None
    index = int(match.group(1))
    case = loaded.spec.functional[index]
    return loaded.position("functional", index, "inputs" if case.inputs else "name")


def _candidates(loaded: LoadedSpec, name: str) -> Iterable[Tuple[PathKey, str]]:
    """The spec texts a line of `name` may show, most specific first."""
    spec = loaded.spec
    if name.endswith(".html"):
        yield ("description",), spec.description
        for group in ("requirements", "constraints"):
            for j, text in enumerate(getattr(spec, group)):
                yield (group, j), text
        for i, example in enumerate(spec.examples):
            for field in ("explanation", "title"):
                text = getattr(example, field)
                if text:
                    yield ("examples", i, field), text
        if spec.svg and spec.svg.lstrip().startswith("<"):
            yield ("svg",), spec.svg
        return
    if name == "challenge.py":
        for i, case in enumerate(spec.functional):
            if case.note:
                yield ("functional", i, "note"), case.note
        yield ("reference",), spec.reference
        if spec.reference_helpers:
            yield ("reference_helpers",), spec.reference_helpers
        return
    for language, code in spec.starter_helpers.items():
        yield ("starter_helpers", language), code
    for language, code in spec.kept_starters.items():
        if name.endswith(f"/{BY_KEY[language].starter_name}"):
            yield ("kept_starters", language), code


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
    """Line `k` of the text at `key`: in a block scalar (`|`, `>`) it is written k + 1 lines
    below the node, at that line's indentation."""
    position = loaded.position(*key)
    try:
        written = loaded.path.read_text().splitlines()
    except OSError:
        return position
    head = written[position.line - 1] if 0 < position.line <= len(written) else ""
    block = head[position.column - 1 : position.column] in ("|", ">")
    if not block or count == 0:
        return position
    line = position.line + 1 + k
    text = written[line - 1] if line <= len(written) else ""
    return Position(position.file, line, len(text) - len(text.lstrip()) + 1)
