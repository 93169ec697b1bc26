"""Safe YAML loading that remembers where every value came from.

Pydantic reports an error by its location in the data (``("signature", 2, "dtype")``); authors
need a file:line:column. We compose the YAML node graph with the safe loader, build plain Python
data from it ourselves, and keep a map from each data path to the node's position.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, Optional, Tuple

import yaml

from generator.diagnostic import Diagnostic, Diagnostics, Position

PathKey = Tuple[Any, ...]

#: the deepest nesting of mappings and sequences a spec may use (the spec itself needs about 8)
MAX_DEPTH = 100
#: how many values aliases (`*name`) may produce in all: a few repeats, never a "billion laughs"
MAX_ALIAS_NODES = 10_000
MERGE_TAG = "tag:yaml.org,2002:merge"


#: a spec's errors are the diagnostics every check reports (generator/diagnostic.py)
SpecError = Diagnostic
SpecErrors = Diagnostics


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


def as_written(raw: PositionedData, path: PathKey) -> PathKey:
    """A model path as the YAML writes it: a spec that says `example:` has no list to index."""
    if path[:2] == ("examples", 0) and isinstance(raw.data, dict) and "example" in raw.data:
        return ("example",) + tuple(path[2:])
    return path


@dataclass(frozen=True)
class BlockLine:
    """The last step of a path to one line of a block scalar: line `index` (0-based) of the
    text written at the rest of the path."""

    index: int


def block_line(text: str, position: Position, index: int) -> Position:
    """Where line `index` of the scalar at `position` is written: in a block scalar (`|`, `>`)
    `index` + 1 lines below the node, at that line's indentation; else the node itself."""
    written = text.splitlines()
    head = written[position.line - 1] if 0 < position.line <= len(written) else ""
    if head[position.column - 1 : position.column] not in ("|", ">"):
        return position
    line = position.line + 1 + index
    shown = written[line - 1] if line <= len(written) else ""
    return Position(position.file, line, len(shown) - len(shown.lstrip()) + 1)


def _mark(node: yaml.Node, file: str) -> Position:
    return Position(file, node.start_mark.line + 1, node.start_mark.column + 1)


class _TooDeep(Exception):
    def __init__(self, mark: yaml.Mark):
        self.mark = mark


class _DepthBound:
    """Refuses nesting deeper than MAX_DEPTH while composing (PyYAML's composer recurses once per
    level, so a deep document would otherwise exhaust the stack)."""

    depth = 0

    def compose_node(self, parent, index):
        self.depth += 1
        try:
            if self.depth > MAX_DEPTH:
                raise _TooDeep(self.peek_event().start_mark)
            return yaml.composer.Composer.compose_node(self, parent, index)
        finally:
            self.depth -= 1


class _BoundedLoader(_DepthBound, yaml.SafeLoader):
    """The safe loader, depth-bounded."""


# YAML 1.1 (PyYAML) reads `1e-5` and `1.0e15` as strings; YAML 1.2 and every author read numbers
_BoundedLoader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?[0-9][0-9_]*(?:\.[0-9_]*)?[eE][-+]?[0-9]+$"),
    list("-+0123456789"),
)


try:
    from yaml.cyaml import CParser as _LibyamlParser
except ImportError:  # PyYAML built without libyaml: the pure-Python loader alone
    _LibyamlParser = yaml.parser.Parser


class _FastBoundedLoader(
    _DepthBound, yaml.composer.Composer, _LibyamlParser, yaml.resolver.Resolver
):
    """The same composer (bounded, with the same resolvers) over libyaml's parser: scanning in C
    is most of a spec's load time. Used only where it cannot differ (below)."""

    def __init__(self, stream: str):
        _LibyamlParser.__init__(self, stream)
        yaml.composer.Composer.__init__(self)
        yaml.resolver.Resolver.__init__(self)


#: the implicit resolvers are looked up by class: the fast loader reads numbers as the other does
_FastBoundedLoader.yaml_implicit_resolvers = _BoundedLoader.yaml_implicit_resolvers


def _compose(text: str) -> Optional[yaml.Node]:
    """The document's node graph. Through libyaml when it is installed and the text is printable;
    any error is then reported by the pure-Python loader, whose messages and positions are the
    ones documented (tests/test_yaml_fast_path.py: both give the same nodes)."""
    if yaml.__with_libyaml__ and not yaml.reader.Reader.NON_PRINTABLE.search(text):
        fast = _FastBoundedLoader(text)
        try:
            return fast.get_single_node()
        except (yaml.YAMLError, _TooDeep):
            pass
        finally:
            fast.dispose()
    loader = _BoundedLoader(text)
    try:
        return loader.get_single_node()
    finally:
        loader.dispose()


def load_positioned(text: str, file: str) -> PositionedData:
    """Parse `text` (one YAML document) with the safe loader, keeping positions.

    Raises SpecError for YAML syntax errors, duplicate keys (which PyYAML silently accepts), merge
    keys, nesting deeper than MAX_DEPTH and aliases that expand to more than MAX_ALIAS_NODES values.
    """
    try:
        root = _compose(text)
    except _TooDeep as exc:
        raise SpecError(
            Position(file, exc.mark.line + 1, exc.mark.column + 1),
            f"YAML nesting is deeper than {MAX_DEPTH} levels",
            "a spec needs only a few levels; flatten the data",
        ) from None
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
    built = set()  # ids of nodes built once: meeting one again means an alias expands it
    aliased = [0]

    def build(node: yaml.Node, path: PathKey, depth: int = 0) -> Any:
        positions[path] = _mark(node, file)
        if id(node) in built:
            aliased[0] += 1
            if aliased[0] > MAX_ALIAS_NODES:
                raise SpecError(
                    _mark(node, file),
                    f"YAML aliases (*name) expand to more than {MAX_ALIAS_NODES:,} values",
                    "write the values out instead of nesting aliases",
                )
        built.add(id(node))
        if depth > MAX_DEPTH:  # aliases can nest values deeper than the text does
            raise SpecError(
                _mark(node, file),
                f"YAML nesting is deeper than {MAX_DEPTH} levels",
                "a spec needs only a few levels; flatten the data",
            )
        if isinstance(node, yaml.MappingNode):
            result: Dict[Any, Any] = {}
            for key_node, value_node in node.value:
                if key_node.tag == MERGE_TAG:
                    raise SpecError(
                        _mark(key_node, file),
                        "YAML merge keys (<<) are not supported",
                        "write the keys out",
                    )
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
                result[key] = build(value_node, path + (key,), depth + 1)
            return result
        if isinstance(node, yaml.SequenceNode):
            return [build(item, path + (i,), depth + 1) for i, item in enumerate(node.value)]
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
