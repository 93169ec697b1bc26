"""What an import could not carry over, said once, in plain words.

Everything the importer drops, changes or approximates goes through one Report, which the CLI prints
and the writer puts at the top of the spec as `# chgen import: ...` comments. Cases whose tensors
are not reproduced exactly are also listed by name, so that the equivalence check (and its tests)
know where to relax.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List


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

    def lines(self) -> List[str]:
        return list(self.notes)
