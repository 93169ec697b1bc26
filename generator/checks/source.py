"""What the rules read: files (read and parsed once), challenge directories and challenge trees.

Paths are shown the way the user named them (relative stays relative), so findings read
`generated/challenges/medium/142_rms_norm_backward/challenge.py:12:5: ...`.
"""

from __future__ import annotations

import ast
import bisect
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from generator.naming import DIFFICULTIES  # noqa: F401 - the checks import it from here

CORE = "core"
DIR_RE = re.compile(r"^(\d+)_(.+)$")
STRICT_DIR_RE = re.compile(r"^(0|[1-9]\d*)_[a-z0-9]+(_[a-z0-9]+)*$")
CHALLENGE_FILES = ("challenge.py", "challenge.html")


def starter_tree(text: str, display: str = "<starter>") -> Optional[ast.Module]:
    """A starter's text as an AST, None when it does not parse: the one parse of starter files,
    also for the importer, which reads a starter's text without a file."""
    try:
        return ast.parse(text, filename=display)
    except (SyntaxError, ValueError):
        return None


class SourceFile:
    """One text file: its text, line table and (for Python) its AST, each computed once."""

    def __init__(self, path: Path, display: str):
        self.path = path
        self.display = display
        self._text: Optional[str] = None
        self.read_error: Optional[str] = None
        self._offsets: Optional[List[int]] = None
        self._tree: Optional[ast.Module] = None
        self.syntax_error: Optional[SyntaxError] = None
        self._parsed = False

    @classmethod
    def of_text(cls, text: str, display: str) -> "SourceFile":
        """A file's text read elsewhere (the importer's original starter), under `display`."""
        source = cls(Path(display), display)
        source._text = text
        return source

    @property
    def text(self) -> str:
        if self._text is None:
            try:
                self._text = self.path.read_bytes().decode("utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                self.read_error = str(exc)
                self._text = ""
        return self._text

    @property
    def lines(self) -> List[str]:
        return self.text.split("\n")

    def position(self, offset: int) -> Tuple[int, int]:
        """1-based (line, column) of a character offset."""
        if self._offsets is None:
            self._offsets = [0] + [m.end() for m in re.finditer("\n", self.text)]
        line = bisect.bisect_right(self._offsets, offset) - 1
        return line + 1, offset - self._offsets[line] + 1

    def python(self) -> Optional[ast.Module]:
        if not self._parsed:
            self._parsed = True
            try:
                self._tree = ast.parse(self.text, filename=self.display)
            except SyntaxError as exc:
                self.syntax_error = exc
            except ValueError as exc:  # null bytes
                self.syntax_error = SyntaxError(str(exc), (self.display, 1, 1, ""))
        return self._tree


@dataclass
class Tree:
    """A folder that holds `challenges/` (our generated/ or a clone of the public set)."""

    root: Path
    display: str

    @property
    def challenges(self) -> Path:
        return self.root / "challenges"

    def challenge_dirs(self) -> List[Path]:
        """Every directory two levels below challenges/ except core/ (misplaced ones included)."""
        found = []
        if not self.challenges.is_dir():
            return found
        for group in sorted(self.challenges.iterdir()):
            if not group.is_dir() or group.name == CORE or group.name.startswith("."):
                continue
            for item in sorted(group.iterdir()):
                if item.is_dir() and not item.name.startswith((".", "__")):
                    found.append(item)
        return found

    def ids(self) -> Dict[int, List[str]]:
        """id -> directory names (relative to challenges/) that use it."""
        ids: Dict[int, List[str]] = {}
        for path in self.challenge_dirs():
            match = DIR_RE.match(path.name)
            if match:
                ids.setdefault(int(match.group(1)), []).append(f"{path.parent.name}/{path.name}")
        return ids


@dataclass
class ChallengeDir:
    """One challenge directory; its files are read lazily and only once."""

    path: Path
    display: str
    tree: Optional[Tree] = None
    _files: Dict[str, Optional[SourceFile]] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def difficulty(self) -> str:
        return self.path.parent.name

    @property
    def easy(self) -> bool:
        return self.difficulty == "easy"

    @property
    def challenge_id(self) -> Optional[int]:
        match = DIR_RE.match(self.name)
        return int(match.group(1)) if match else None

    def file(self, relative: str) -> Optional[SourceFile]:
        if relative not in self._files:
            path = self.path / relative
            self._files[relative] = (
                SourceFile(path, f"{self.display}/{relative}") if path.is_file() else None
            )
        return self._files[relative]

    def where(self, relative: str) -> str:
        return f"{self.display}/{relative}"


def display_join(base: str, *parts: str) -> str:
    base = base.rstrip("/") or "."
    joined = "/".join((base,) + parts)
    return joined[2:] if joined.startswith("./") else joined


def find_tree(path: Path) -> Optional[Path]:
    """The tree root above a challenge directory: .../<root>/challenges/<difficulty>/<dir>."""
    parent = path.parent.parent
    if parent.name == "challenges":
        return parent.parent
    return None
