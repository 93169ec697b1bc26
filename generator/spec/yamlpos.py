"""Safe YAML loading that remembers where every value came from.

Pydantic reports an error by its location in the data (``("signature", 2, "dtype")``); authors
need a file:line:column. We compose the YAML node graph with the safe loader, build plain Python
data from it ourselves, and keep a map from each data path to the node's position.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, Tuple

import yaml

PathKey = Tuple[Any, ...]


@dataclass(frozen=True)
class Position:
    file: str
    line: int  # 1-based
    column: int  # 1-based

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


class SpecError(Exception):
    """A problem in a spec that the author must fix; `str()` is the one-line message."""

    def __init__(self, position: Position, message: str, hint: str = ""):
        self.position = position
        self.message = message
        self.hint = hint
        super().__init__(self.render())

    def render(self) -> str:
        text = f"{self.position}: {self.message}"
        if self.hint:
            text += f" ({self.hint})"
        return text


class SpecErrors(Exception):
    """Every problem found in one spec, in file order."""

    def __init__(self, errors: list[SpecError]):
        self.errors = sorted(errors, key=lambda e: (e.position.line, e.position.column))
        super().__init__("\n".join(e.render() for e in self.errors))


@dataclass
class PositionedData:
    data: Any
    positions: Dict[PathKey, Position]
    file: str

    def position(self, path: PathKey) -> Position:
        """The position of `path`, or of its nearest ancestor that exists in the YAML."""
        path = tuple(path)
        while path not in self.positions and path:
            path = path[:-1]
        return self.positions.get(path, Position(self.file, 1, 1))


def _mark(node: yaml.Node, file: str) -> Position:
    return Position(file, node.start_mark.line + 1, node.start_mark.column + 1)


def load_positioned(text: str, file: str) -> PositionedData:
    """Parse `text` (one YAML document) with the safe loader, keeping positions.

    Raises SpecError for YAML syntax errors and duplicate keys (which PyYAML silently accepts).
    """
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        pos = Position(file, mark.line + 1, mark.column + 1) if mark else Position(file, 1, 1)
        problem = exc.problem or exc.context or "invalid YAML"
        raise SpecError(pos, f"YAML syntax error: {problem}", "fix the YAML syntax") from None
    except yaml.YAMLError as exc:  # e.g. a stream with several documents
        raise SpecError(Position(file, 1, 1), f"YAML error: {exc}".splitlines()[0]) from None
    positions: Dict[PathKey, Position] = {}
    if root is None:
        return PositionedData(None, positions, file)
    constructor = yaml.SafeLoader("")

    def build(node: yaml.Node, path: PathKey) -> Any:
        positions[path] = _mark(node, file)
        if isinstance(node, yaml.MappingNode):
            result: Dict[Any, Any] = {}
            for key_node, value_node in node.value:
                if not isinstance(key_node, yaml.ScalarNode):
                    raise SpecError(_mark(key_node, file), "mapping keys must be plain scalars")
                key = constructor.construct_object(key_node, deep=True)
                if isinstance(key, (list, dict)):
                    raise SpecError(_mark(key_node, file), "mapping keys must be plain scalars")
                if key in result:
                    raise SpecError(
                        _mark(key_node, file), f"duplicate key {key!r}", "remove one of them"
                    )
                positions[path + (key,)] = _mark(value_node, file)
                result[key] = build(value_node, path + (key,))
            return result
        if isinstance(node, yaml.SequenceNode):
            return [build(item, path + (i,)) for i, item in enumerate(node.value)]
        try:
            return constructor.construct_object(node, deep=True)
        except yaml.constructor.ConstructorError as exc:
            raise SpecError(_mark(node, file), f"cannot read value: {exc.problem}") from None

    try:
        data = build(root, ())
    except RecursionError:
        raise SpecError(Position(file, 1, 1), "YAML nesting is too deep") from None
    return PositionedData(data, positions, file)


def read_text(path: Path, display: str) -> str:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise SpecError(Position(display, 1, 1), f"cannot read file: {exc.strerror}") from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SpecError(
            Position(display, 1, 1), f"file is not UTF-8 (byte {exc.start})", "save it as UTF-8"
        ) from None
