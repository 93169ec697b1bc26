"""Layout rules: directory names, difficulty folders, unique ids, the files every challenge has."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Dict, List, Optional

from generator.challenge.pyfile import read_challenge_py
from generator.checks.report import Report
from generator.checks.source import (
    CHALLENGE_FILES,
    DIFFICULTIES,
    DIR_RE,
    STRICT_DIR_RE,
    ChallengeDir,
    Tree,
)
from generator.languages import LANGUAGES, for_gpus

STARTERS = tuple(lang.starter_name for lang in LANGUAGES)
#: starters every challenge must hold (a language newer than the tree's set need not be there)
REQUIRED_STARTERS = tuple(lang.starter_name for lang in LANGUAGES if lang.required_in_tree)
#: files that tools leave behind and nobody commits
_IGNORED = re.compile(r"^(\..*|__pycache__|.*\.pyc)$")


def suggested_name(name: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")
    return slug


def _num_gpus(ch: ChallengeDir) -> int:
    """challenge.py's num_gpus (1 when it cannot be read): a multi-GPU challenge ships only the
    starters of the languages that can reach their peer ranks."""
    source = ch.file("challenge.py")
    value = read_challenge_py(source.text, source.display).literal("num_gpus", 1) if source else 1
    return value if isinstance(value, int) else 1


def check_tree(tree: Tree, report: Report) -> None:
    base = tree.challenges / "core" / "challenge_base.py"
    if not base.is_file():
        report.add(
            "L008", f"{tree.display}/challenges/core/challenge_base.py", 1, 1, "file is missing"
        )


class IdIndex:
    """Ids of the trees involved, each scanned once."""

    def __init__(self, against: Optional[Path]):
        self._trees: Dict[Path, Dict[int, List[str]]] = {}
        self.against: Optional[Dict[int, List[str]]] = None
        if against is not None:
            inside = against.name == "challenges" and not (against / "challenges").is_dir()
            self.against = Tree(against.parent if inside else against, "").ids()

    def tree_ids(self, tree: Tree) -> Dict[int, List[str]]:
        key = tree.root.resolve()
        if key not in self._trees:
            self._trees[key] = tree.ids()
        return self._trees[key]


def check(ch: ChallengeDir, report: Report, ids: IdIndex) -> None:
    name = ch.name
    where = ch.display
    if not STRICT_DIR_RE.match(name):
        match = DIR_RE.match(name)
        if match:
            fix = f"rename it to '{int(match.group(1))}_{suggested_name(match.group(2))}'"
        else:
            fix = "rename it to <id>_<slug>, e.g. '142_rms_norm_backward'"
        report.add("L001", where, 1, 1, f"directory '{name}' is not <id>_<lowercase_slug>", fix)
    if ch.difficulty not in DIFFICULTIES or ch.path.parent.parent.name != "challenges":
        report.add(
            "L002",
            where,
            1,
            1,
            f"'{name}' sits in '{ch.difficulty}/', not in challenges/easy, medium or hard",
        )
    own = f"{ch.difficulty}/{name}"
    number = ch.challenge_id
    if number is not None and ch.tree is not None:
        others = [d for d in ids.tree_ids(ch.tree).get(number, []) if d != own]
        if others:
            report.add("L003", where, 1, 1, f"id {number} is also used by {', '.join(others)}")
    if number is not None and ids.against is not None:
        taken = [d for d in ids.against.get(number, []) if d.split("/", 1)[1] != name]
        if taken:
            report.add(
                "L004",
                where,
                1,
                1,
                f"id {number} is taken by {', '.join(taken)} in the --against tree",
            )
    for required in CHALLENGE_FILES:
        if ch.file(required) is None:
            report.add("L005", ch.where(required), 1, 1, f"{required} is missing")
    starter_dir = ch.path / "starter"
    offered = {lang.starter_name for lang in for_gpus(_num_gpus(ch))}
    for starter in REQUIRED_STARTERS:
        if starter in offered and not (starter_dir / starter).is_file():
            report.add("L006", ch.where(f"starter/{starter}"), 1, 1, f"{starter} is missing")
    if starter_dir.is_dir():
        for item in sorted(starter_dir.iterdir()):
            if item.name not in STARTERS and not _IGNORED.match(item.name):
                report.add(
                    "L007", ch.where(f"starter/{item.name}"), 1, 1, f"unknown file '{item.name}'"
                )
    for item in sorted(ch.path.iterdir()) if ch.path.is_dir() else []:
        if item.name in CHALLENGE_FILES or item.name == "starter" or _IGNORED.match(item.name):
            continue
        report.add("L009", ch.where(item.name), 1, 1, f"unexpected '{item.name}'")
