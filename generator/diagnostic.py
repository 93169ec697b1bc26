"""One problem at file:line:column, whoever found it: the spec reader, a section rule, a check of
a generated tree. A rule code (empty for a spec that does not read), a severity, what is wrong and
what to do. The spec's errors are raised (one, or `Diagnostics` for all of a spec's); the checks'
are collected in a report.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Dict, List, Tuple

ERROR = "error"
WARNING = "warning"


@dataclass(frozen=True)
class Position:
    file: str
    line: int  # 1-based
    column: int  # 1-based

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


@functools.total_ordering
class Diagnostic(Exception):
    """`str()` is the one-line report: `file:line:column: CODE message (hint)`."""

    def __init__(
        self,
        position: Position,
        message: str,
        hint: str = "",
        code: str = "",
        severity: str = ERROR,
    ):
        self.position = position
        self.message = message
        self.hint = hint
        self.code = code
        self.severity = severity
        super().__init__(self.render())

    @classmethod
    def at(
        cls, path: str, line: int, col: int, code: str, severity: str, message: str
    ) -> "Diagnostic":
        """A check's finding: its message says what to do (the rule's fix appended)."""
        return cls(Position(path, line, col), message, "", code, severity)

    @property
    def path(self) -> str:
        return self.position.file

    @property
    def line(self) -> int:
        return self.position.line

    @property
    def col(self) -> int:
        return self.position.column

    @property
    def text(self) -> str:
        """The code and the message, as a report line shows them after the position."""
        return f"{self.code} {self.message}" if self.code else self.message

    def render(self) -> str:
        line = f"{self.position}: {self.text}"
        return f"{line} ({self.hint})" if self.hint else line

    def as_dict(self) -> Dict[str, object]:
        """The JSON form of `chgen check --json` (a finding's hint is inside its message)."""
        return {
            "path": self.path,
            "line": self.line,
            "col": self.col,
            "code": self.code,
            "severity": self.severity,
            "message": self.message,
        }

    def _key(self) -> Tuple[str, int, int, str, str, str, str]:
        where = self.position
        return (where.file, where.line, where.column, self.code, self.severity, self.message,
                self.hint)  # fmt: skip

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Diagnostic) and self._key() == other._key()

    def __lt__(self, other: "Diagnostic") -> bool:
        return self._key() < other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __reduce__(self):
        return (type(self), (self.position, self.message, self.hint, self.code, self.severity))


class Diagnostics(Exception):
    """Every problem found in one spec, in file order."""

    def __init__(self, errors: List[Diagnostic]):
        self.errors = sorted(errors, key=lambda e: (e.position.line, e.position.column))
        super().__init__("\n".join(e.render() for e in self.errors))
