"""What an import could not carry over, said once, in plain words.

Everything the importer drops, changes or approximates goes through one Report, which the CLI prints
and the writer puts at the top of the spec as `# chgen import: ...` comments. Cases whose tensors
are not reproduced exactly are also listed by name, so that the equivalence check (and its tests)
know where to relax.

A refusal (ImportFailure) is one message naming the challenge's own details; `reason_of` turns it
into the construct it stands for, so that the refusals of a whole tree can be grouped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple


class ImportFailure(Exception):
    """The challenge cannot be written as a spec at all; the message says why."""


@dataclass
class Report:
    notes: List[str] = field(default_factory=list)
    approximated: Dict[str, List[str]] = field(default_factory=dict)  # case label -> reasons

    def note(self, message: str) -> None:
        if message not in self.notes:
            self.notes.append(message)

    def approximate(self, case: str, message: str) -> None:
        """`case` does not reproduce the original's tensors for a fixed seed."""
        reasons = self.approximated.setdefault(case, [])
        if message not in reasons:
            reasons.append(message)
        self.note(message)

    def withdraw(self, case: str) -> None:
        """`case` is reproduced after all (its inputs are now code): its approximations go."""
        for message in self.approximated.pop(case, []):
            if message in self.notes:
                self.notes.remove(message)

    def lines(self) -> List[str]:
        return list(self.notes)


#: refusal message pattern -> the construct it stands for; the first group, when there is one,
#: is the detail shown beside it (the expression, the rank, ...). First match wins.
REASONS: Tuple[Tuple[str, str], ...] = (
    (r"\(page part not representable: ([\w ]+)\)", "a part of the page no spec field keeps"),
    (
        r"\(written ([^)]*)\)[^:]*equals no size parameter",
        "tensor dimension is an expression of the sizes",
    ),
    (
        r"dimension \d+ of \w+ is .*equals no size parameter",
        "tensor dimension follows no size parameter",
    ),
    (r"has rank (\[[^\]]*\]) across cases", "a tensor's rank differs between cases"),
    (r"the example's \w+ is (\d+-D)", "example tensor of rank 3 or more"),
    (r"is an? ([\w/+ ]+ keyword)", "parameter named with a keyword"),
    (r"declared ([\w.]+), not a ctypes", "parameter typed without ctypes"),
    (r"dtype table lacks", "dtype outside chgen's dtype table"),
    (r"a dtype per case", "a tensor's dtype differs between cases"),
    (r"ran past the time limit", "challenge.py ran past the time limit"),
    (r"importing challenge\.py failed: (\w+)", "challenge.py raises when imported"),
    (r"(generate_\w+_test) failed", "challenge.py raises while its cases are traced"),
    (r"reference_impl fails on the example: (\w+)", "reference_impl raises on the example"),
    (r"does not parse|syntax error", "challenge.py does not parse"),
    (r"defines no class Challenge|has no reference_impl", "challenge.py lacks the Challenge class"),
    (r"is missing$", "challenge.py or challenge.html is missing"),
    (r"is not named <id>_<slug>|not easy, medium or hard", "directory outside the layout"),
    (r"its inputs cannot be written as code: (.*)$", "inputs the importer cannot write as code"),
    (
        r"the regenerated challenge\.py is not equivalent: case [^:]*: ([^:]*)",
        "the regenerated challenge.py is not equivalent",
    ),
    (r"the spec written does not load", "the spec written does not load"),
    (r"chgen cannot render the spec: (\w+)", "chgen cannot render the spec"),
    (
        r"chgen generate refuses the spec: .*name 'self' is not defined",
        "reference calls helpers on self",
    ),
    (r"chgen generate refuses the spec: ([^:(]*)", "chgen generate refuses the spec"),
    (r"the import process (?:died|stopped)", "the import process died"),
    (r"the import process sent what chgen refuses", "the import process sent what chgen refuses"),
    (r"chgen import failed: (\w+)", "chgen import failed (a chgen bug)"),
)


def reason_of(message: str) -> Tuple[str, Optional[str]]:
    """(the construct a refusal stands for, the detail) for grouping a tree's refusals.

    A message no pattern knows is its own reason, with names and numbers taken out."""
    for pattern, reason in REASONS:
        match = re.search(pattern, message, re.MULTILINE)
        if match:
            return reason, (match.group(1).strip() if match.groups() else None)
    first = message.splitlines()[0] if message else "no reason given"
    generic = re.sub(r"'[^']*'|\"[^\"]*\"", "'…'", first)
    generic = re.sub(r"\[[^\]]*\]", "[…]", generic)
    generic = re.sub(r"\b\d+(\.\d+)?\b", "N", generic)
    return generic[:120], None
