"""Run the rules over the paths given on the command line.

A path is a spec file (or a folder of specs), a challenge directory (or a file inside one), a
difficulty folder, a `challenges/` folder, or a tree root that holds `challenges/`. Each file is
read and parsed once; the static tier never imports torch.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from generator.challenge.pyfile import ChallengePy
from generator.checks import challenge_py, html, layout, starters
from generator.checks.registry import ERROR, WARNING, Finding
from generator.checks.report import Options, Report
from generator.checks.source import (
    CHALLENGE_FILES,
    DIFFICULTIES,
    ChallengeDir,
    Tree,
    display_join,
    find_tree,
)

SPEC_SUFFIXES = (".yaml", ".yml")


class TargetError(Exception):
    """A path that names nothing chgen can check."""


@dataclass
class Targets:
    trees: List[Tree] = field(default_factory=list)
    challenges: List[ChallengeDir] = field(default_factory=list)
    specs: List[Path] = field(default_factory=list)


@dataclass
class Result:
    #: the findings that count (all of them, unless the run honours a manifest)
    findings: List[Finding]
    challenges: int
    specs: int
    seconds: float
    #: findings a spec tolerates, each with that spec's file (checks/managed.py)
    tolerated: List[Tuple[Finding, str]] = field(default_factory=list)
    #: findings of challenges chgen does not manage (no spec), and those challenges' ids
    unmanaged: List[Finding] = field(default_factory=list)
    unmanaged_ids: List[str] = field(default_factory=list)

    @property
    def errors(self) -> int:
        return sum(1 for f in self.findings if f.severity == ERROR)

    @property
    def warnings(self) -> int:
        return sum(1 for f in self.findings if f.severity == WARNING)


def _is_challenge_dir(path: Path) -> bool:
    if any((path / name).is_file() for name in CHALLENGE_FILES) or (path / "starter").is_dir():
        return True
    return path.parent.name in DIFFICULTIES and path.parent.parent.name == "challenges"


def _tree_for(path: Path, display: str, cache: Dict[Path, Tree]) -> Optional[Tree]:
    root = find_tree(path)
    if root is None:
        return None
    key = root.resolve()
    if key not in cache:
        shown = display
        for _ in range(3):
            shown = shown.rsplit("/", 1)[0] if "/" in shown else "."
        cache[key] = Tree(root, shown)
    return cache[key]


def _spec_files(folder: Path) -> List[Path]:
    from generator.naming import find_specs

    return find_specs(folder)


def default_paths() -> List[Path]:
    """No path given: the tree here, or a chgen project's generated tree and specs."""
    here = Path(".")
    if (here / "challenges").is_dir():
        return [here]
    found = [p for p in (Path("generated"), Path("specs")) if p.is_dir()]
    return found or [here]


def collect(paths: Sequence[Path]) -> Targets:
    targets = Targets()
    trees: Dict[Path, Tree] = {}
    seen = set()

    def add_challenge(path: Path, display: str) -> None:
        key = path.resolve()
        if key in seen:
            return
        seen.add(key)
        targets.challenges.append(ChallengeDir(path, display, _tree_for(path, display, trees)))

    def add_tree(root: Path, display: str) -> None:
        tree = trees.setdefault(root.resolve(), Tree(root, display))
        if tree not in targets.trees:
            targets.trees.append(tree)
        for directory in tree.challenge_dirs():
            rel = directory.relative_to(root)
            add_challenge(directory, display_join(display, *rel.parts))

    for path in paths:
        shown = str(path)
        if path.is_file():
            if path.suffix in SPEC_SUFFIXES:
                targets.specs.append(path)
                continue
            directory = path.parent
            while directory != directory.parent and not _is_challenge_dir(directory):
                if directory.name in ("challenges",) + DIFFICULTIES:
                    break
                directory = directory.parent
            if _is_challenge_dir(directory) and directory.name != "core":
                rel_depth = len(path.relative_to(directory).parts)
                display = shown
                for _ in range(rel_depth):
                    display = display.rsplit("/", 1)[0] if "/" in display else "."
                add_challenge(directory, display)
            continue
        if not path.is_dir():
            raise TargetError(f"{shown}: no such file or directory")
        if (path / "challenges").is_dir():
            add_tree(path, shown)
        elif path.name == "challenges":
            add_tree(path.parent, str(path.parent))
        elif path.name in DIFFICULTIES and path.parent.name == "challenges":
            for directory in sorted(p for p in path.iterdir() if p.is_dir()):
                add_challenge(directory, display_join(shown, directory.name))
        elif _is_challenge_dir(path):
            add_challenge(path, shown.rstrip("/") or ".")
        elif _spec_files(path):
            targets.specs.extend(_spec_files(path))
        else:
            raise TargetError(f"{shown}: no challenge, challenge tree or spec found here")
    return targets


#: below this many challenges a second process costs more than it saves
PARALLEL_FROM = 24


def _static(
    challenges: Sequence[ChallengeDir], options: Options, ids: layout.IdIndex
) -> Tuple[List[Finding], Dict[Path, Optional[ChallengePy]]]:
    """The per-challenge static rules (F005 included): one parse of each file."""
    report = Report(options)
    models: Dict[Path, Optional[ChallengePy]] = {}
    whitespace = report.wants("F005")
    if whitespace:
        from generator.checks import formatters
    for ch in challenges:
        layout.check(ch, report, ids)
        model = challenge_py.check(ch, report)
        models[ch.path] = model
        starters.check(ch, model, report)
        html.check(ch, model, report)
        if whitespace:
            formatters.check_whitespace(ch, report)
    return report.findings, models


def _static_findings(
    challenges: Sequence[ChallengeDir], options: Options, ids: layout.IdIndex
) -> List[Finding]:
    return _static(challenges, options, ids)[0]


def _jobs(options: Options, count: int) -> int:
    if options.jobs:
        return max(1, options.jobs)
    if count < PARALLEL_FROM or "fork" not in multiprocessing.get_all_start_methods():
        return 1
    return min(2, os.cpu_count() or 1)


def run(paths: Sequence[Path], options: Optional[Options] = None) -> Result:
    """Check `paths`. The static rules run in two processes for a large tree (the second forked
    from this one, so nothing is imported twice) unless --deep needs the parsed models here."""
    options = options or Options()
    started = time.perf_counter()
    targets = collect(paths)
    report = Report(options)
    ids = layout.IdIndex(options.against)
    for tree in targets.trees:
        layout.check_tree(tree, report)
    challenges = targets.challenges
    jobs = 1 if options.run_deep else _jobs(options, len(challenges))
    models: Dict[Path, Optional[ChallengePy]] = {}
    if jobs > 1:
        chunks = [challenges[i::jobs] for i in range(jobs)]
        # The forked process only parses files (no challenge code runs in it): the findings it
        # hands back through the pool come from chgen's own code.
        context = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(max_workers=jobs - 1, mp_context=context) as pool:
            futures = [pool.submit(_static_findings, chunk, options, ids) for chunk in chunks[1:]]
            report.findings.extend(_static_findings(chunks[0], options, ids))
            for future in futures:
                report.findings.extend(future.result())
    else:
        found, models = _static(challenges, options, ids)
        report.findings.extend(found)
    if options.run_formatters:
        from generator.checks import formatters

        formatters.check(challenges, report)
    if options.run_deep:
        from generator.checks.deep_runner import check_in_sandbox

        check_in_sandbox(challenges, models, report)
    if targets.specs:
        from generator.checks import specs

        specs.check(targets.specs, report)
    found = report.sorted()
    if not options.managed:
        return Result(found, len(challenges), len(targets.specs), time.perf_counter() - started)
    from generator.checks import managed

    parts = managed.split(found, challenges, options.specs, options.count_unmanaged)
    return Result(
        parts.counted,
        len(challenges),
        len(targets.specs),
        time.perf_counter() - started,
        parts.tolerated,
        parts.unmanaged,
        parts.unmanaged_ids,
    )


def render_human(result: Result) -> str:
    shown = [(f, f.render()) for f in result.findings]
    shown += [(f, f"{f.render()} [tolerated by {spec}]") for f, spec in result.tolerated]
    lines = [line for _, line in sorted(shown, key=lambda item: item[0])]
    if result.unmanaged:
        lines.append(
            f"not managed by chgen (no spec): ids {', '.join(result.unmanaged_ids)}, "
            f"{len(result.unmanaged)} finding(s)"
        )
        lines += [finding.render() for finding in result.unmanaged]
    lines.append(summary(result))
    return "\n".join(lines) + "\n"


def summary(result: Result) -> str:
    what = []
    if result.challenges or not result.specs:
        what.append(f"{result.challenges} challenge(s)")
    if result.specs:
        what.append(f"{result.specs} spec(s)")
    apart = ""
    if result.tolerated:
        apart += f", {len(result.tolerated)} tolerated"
    if result.unmanaged:
        apart += f", {len(result.unmanaged)} not managed by chgen"
    return (
        f"{result.errors} error(s), {result.warnings} warning(s){apart} in {' and '.join(what)} "
        f"({result.seconds:.2f} s)"
    )


def render_json(result: Result) -> str:
    """Every finding; one that does not count says why: `tolerated_by` (the spec file), or
    `managed: false` (a challenge chgen does not manage)."""
    rows = [(f, f.as_dict()) for f in result.findings]
    rows += [(f, {**f.as_dict(), "tolerated_by": spec}) for f, spec in result.tolerated]
    rows += [(f, {**f.as_dict(), "managed": False}) for f in result.unmanaged]
    return json.dumps([row for _, row in sorted(rows, key=lambda r: r[0])], indent=2) + "\n"
