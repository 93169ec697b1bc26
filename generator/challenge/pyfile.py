"""challenge.py read statically (its AST; the file is never imported): the one reader of it.

The checks, the importer, the preview and the judge's loader all need the same facts (the class,
its attributes and methods, the solve signature with the dtype rows of each entry), so the text
is parsed here, once, and every fact keeps its line:column.
"""

from __future__ import annotations

import ast
import functools
import io
import re
import textwrap
import tokenize
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Set, Tuple

from generator.challenge import ctypes_table
from generator.challenge.ctypes_table import CType
from generator.dtypes import DTYPES, DType
from generator.languages.base import SigParam

CLASS_NAME = "Challenge"
REQUIRED_METHODS = (
    "reference_impl",
    "get_solve_signature",
    "generate_example_test",
    "generate_functional_test",
    "generate_performance_test",
)
ATTRIBUTES = ("name", "atol", "rtol", "num_gpus", "access_tier")
DIRECTIONS = ("in", "out", "inout")
#: the key of a multi-GPU challenge's case dict that names its ranks (the default: num_gpus)
WORLD_SIZE = "world_size"

_SCOPES = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
_NO_LITERAL = object()


@dataclass
class SigEntry:
    """One entry of get_solve_signature: `"name": (ctypes type, direction)`."""

    name: str
    ctype: str  # normalized spelling (see ctypes_table.normalize)
    written: str  # as written
    direction: str
    is_tensor: bool
    dtypes: List[DType]  # the rows a starter may spell it with; [] when the table has none
    line: int  # of the name
    col: int
    direction_line: int = 0
    direction_col: int = 0
    facts: Optional[CType] = None

    @property
    def const(self) -> bool:
        """An input pointer: `const T*` in C-like starters."""
        return self.is_tensor and self.direction == "in"

    def sig_param(self) -> SigParam:
        dtype = self.dtypes[0] if self.dtypes else DTYPES["float32"]
        return SigParam(self.name, dtype, self.direction, self.is_tensor)


@dataclass
class Attribute:
    """A class-level assignment: `atol = 1e-3`."""

    name: str
    node: ast.stmt
    value_node: ast.expr
    line: int
    col: int
    _literal: Any = _NO_LITERAL

    @property
    def has_literal(self) -> bool:
        return self._literal is not _NO_LITERAL

    @property
    def literal(self) -> Any:
        """The value, when it is a literal (else None; see has_literal)."""
        return None if self._literal is _NO_LITERAL else self._literal


@dataclass
class Method:
    """A method of the challenge class, with its text and where it is."""

    name: str
    node: ast.FunctionDef
    line: int  # of `def`
    col: int
    end_line: int
    header_end: int  # line of the ':' that ends a (possibly multi-line) header
    source: str  # the method's text, dedented
    params: List[str]  # without self


@dataclass
class ChallengePy:
    """Everything read from one challenge.py."""

    text: str
    display: str
    module: Optional[ast.Module]
    syntax_error: Optional[SyntaxError] = None
    cls: Optional[ast.ClassDef] = None
    classes: List[str] = field(default_factory=list)  # every module-level class, in order
    base_ok: bool = False
    methods: Dict[str, ast.FunctionDef] = field(default_factory=dict)
    functions: Dict[str, ast.FunctionDef] = field(default_factory=dict)  # module level
    attributes: Dict[str, ast.stmt] = field(default_factory=dict)
    attribute_facts: Dict[str, Attribute] = field(default_factory=dict)
    signature: Optional[List[SigEntry]] = None
    signature_issues: List[Tuple[ast.AST, str]] = field(default_factory=list)
    imports: Dict[str, str] = field(default_factory=dict)  # bound name -> import statement
    module_names: List[str] = field(default_factory=list)  # other module-level names

    @functools.cached_property
    def lines(self) -> List[str]:
        return self.text.splitlines()

    @functools.cached_property
    def _lines_with_ends(self) -> List[str]:
        """The text split as ast splits it for a node's source (only at \\n, \\r\\n and \\r)."""
        return re.findall(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$", self.text)

    def segment(self, node: ast.AST, padded: bool = False) -> Optional[str]:
        """What ast.get_source_segment gives for `node`, from the lines split once (the ast
        function splits the whole text again on every call: the import asks hundreds of times)."""
        end_line, end_col = getattr(node, "end_lineno", None), getattr(node, "end_col_offset", None)
        if end_line is None or end_col is None:
            return None
        lines = self._lines_with_ends
        start_line, col = node.lineno, node.col_offset  # type: ignore[attr-defined]
        first, last = start_line - 1, end_line - 1
        if first == last:
            return lines[first].encode()[col:end_col].decode()
        head = lines[first].encode()
        pad = "".join(c if c in "\f\t" else " " for c in head[:col].decode()) if padded else ""
        return "".join(
            [
                pad + head[col:].decode(),
                *lines[first + 1 : last],
                lines[last].encode()[:end_col].decode(),
            ]
        )

    @property
    def tensors(self) -> List[SigEntry]:
        return [e for e in self.signature or [] if e.is_tensor]

    def sig_params(self) -> List[SigParam]:
        return [e.sig_param() for e in self.signature or []]

    def attribute_value(self, name: str) -> Optional[ast.expr]:
        node = self.attributes.get(name)
        return getattr(node, "value", None)

    def literal(self, name: str, default: Any = None) -> Any:
        """A class attribute's literal value (`name`, `atol`, ...), or `default`."""
        fact = self.attribute_facts.get(name)
        return fact.literal if fact is not None and fact.has_literal else default

    def method(self, name: str) -> Optional[Method]:
        node = self.methods.get(name)
        if node is None:
            return None
        segment = self.segment(node, padded=True) or ""
        return Method(
            name=name,
            node=node,
            line=node.lineno,
            col=node.col_offset + 1,
            end_line=node.end_lineno or node.lineno,
            header_end=_header_end(self.lines, node),
            source=textwrap.dedent(segment),
            params=[a.arg for a in node.args.args[1:]],
        )

    def comments(self) -> Dict[int, Tuple[int, str]]:
        """line -> (column, text without '#') of every comment."""
        found = {}
        try:
            for tok in tokenize.generate_tokens(io.StringIO(self.text).readline):
                if tok.type == tokenize.COMMENT:
                    found[tok.start[0]] = (tok.start[1], tok.string[1:].strip())
        except (tokenize.TokenError, SyntaxError):
            pass
        return found


def read_challenge_py(
    text: str, display: str = "challenge.py", class_name: str = CLASS_NAME
) -> ChallengePy:
    """Read challenge.py's text; a syntax error is kept in `syntax_error`, never raised."""
    try:
        module = ast.parse(text, filename=display)
    except SyntaxError as exc:
        return ChallengePy(text, display, None, exc)
    except ValueError as exc:  # null bytes
        return ChallengePy(text, display, None, SyntaxError(str(exc), (display, 1, 1, "")))
    index_tree(module)
    found = ChallengePy(text, display, module)
    _read_module(found)
    for node in module.body:
        if isinstance(node, ast.ClassDef) and node.name == class_name:
            found.cls = node
            found.base_ok = any(
                (isinstance(b, ast.Name) and b.id == "ChallengeBase")
                or (isinstance(b, ast.Attribute) and b.attr == "ChallengeBase")
                for b in node.bases
            )
            break
    if found.cls is not None:
        _read_class(found)
        _read_signature(found)
    return found


def _read_module(found: ChallengePy) -> None:
    others: List[str] = []
    for node in found.module.body:
        if isinstance(node, ast.FunctionDef):
            found.functions[node.name] = node
        if isinstance(node, ast.ClassDef):
            found.classes.append(node.name)
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    found.imports[alias.asname] = f"import {alias.name} as {alias.asname}"
                else:
                    found.imports[alias.name.split(".")[0]] = f"import {alias.name}"
        elif isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                bound = alias.asname or alias.name
                spelled = f"{alias.name} as {alias.asname}" if alias.asname else alias.name
                found.imports[bound] = f"from {node.module} import {spelled}"
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            others.append(node.name)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                others.extend(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
    found.module_names = list(dict.fromkeys(others))


def _read_class(found: ChallengePy) -> None:
    for node in found.cls.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found.methods.setdefault(node.name, node)
        targets: List[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets = [node.target]
        for target in targets:
            if not isinstance(target, ast.Name) or target.id in found.attribute_facts:
                continue
            try:
                literal = ast.literal_eval(node.value)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                literal = _NO_LITERAL
            found.attribute_facts[target.id] = Attribute(
                target.id, node, node.value, node.lineno, node.col_offset + 1, literal
            )
            if target.id in ATTRIBUTES:
                found.attributes[target.id] = node


def _read_signature(found: ChallengePy) -> None:
    method = found.methods.get("get_solve_signature")
    if method is None:
        return
    issues = found.signature_issues
    returns = [n for n in walk(method) if isinstance(n, ast.Return)]
    if len(returns) != 1 or not isinstance(returns[0].value, ast.Dict):
        issues.append((method, "get_solve_signature must return one dict literal"))
        return
    entries: List[SigEntry] = []
    seen = set()
    for key, value in zip(returns[0].value.keys, returns[0].value.values):
        where = key if key is not None else value
        if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
            issues.append((where, "signature keys must be string literals"))
            return
        if key.value in seen:
            issues.append((key, f"parameter {key.value!r} appears twice"))
        seen.add(key.value)
        if not (isinstance(value, ast.Tuple) and len(value.elts) == 2):
            issues.append((value, f"{key.value!r} must map to a (ctypes type, direction) tuple"))
            return
        type_node, direction_node = value.elts
        direction = getattr(direction_node, "value", None)
        if direction not in DIRECTIONS:
            issues.append(
                (direction_node, f"direction of {key.value!r} must be 'in', 'out' or 'inout'")
            )
            return
        written = ast.unparse(type_node)
        facts = ctypes_table.lookup(written)
        dtypes = list(facts.rows)
        if not facts.spelling.startswith("ctypes."):
            issues.append((type_node, f"{written} (for {key.value!r}) is not a ctypes type"))
        elif not dtypes:
            issues.append((type_node, f"{written} (for {key.value!r}) is {facts.no_row}"))
        elif not facts.is_pointer and direction != "in":
            issues.append((direction_node, f"scalar {key.value!r} can only be 'in'"))
        entries.append(
            SigEntry(
                name=key.value,
                ctype=facts.spelling,
                written=written,
                direction=direction,
                is_tensor=facts.is_pointer,
                dtypes=dtypes,
                line=key.lineno,
                col=key.col_offset + 1,
                direction_line=direction_node.lineno,
                direction_col=direction_node.col_offset + 1,
                facts=facts,
            )
        )
    found.signature = entries


def _header_end(lines: List[str], fn: ast.FunctionDef) -> int:
    """The line holding the ':' that ends a (possibly multi-line) def header (1-based)."""
    source = "\n".join(lines[fn.lineno - 1 : fn.body[0].lineno])
    depth = 0
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type == tokenize.OP and tok.string in "([{":
                depth += 1
            elif tok.type == tokenize.OP and tok.string in ")]}":
                depth -= 1
            elif tok.type == tokenize.OP and tok.string == ":" and depth == 0:
                return fn.lineno + tok.start[0] - 1
    except (tokenize.TokenError, SyntaxError):
        pass
    return fn.lineno


# --------------------------------------------------------------------------- assertions

SHAPE_ATTRS = {"shape", "ndim"}
SHAPE_METHODS = {"size", "dim", "numel", "ndimension"}


def asserted_tensors(code: ast.AST) -> Tuple[Set[str], Set[str]]:
    """(names whose shape, names whose dtype) an `assert` in `code` reads (`x.shape`, `x.size()`,
    `x.dtype`; a loop variable over a literal tuple of names stands for each of them): what rules
    P012 and P013 ask reference_impl to check, and what chgen then does not assert again."""
    aliases = _loop_aliases(code)
    shape: Set[str] = set()
    dtype: Set[str] = set()
    for node in walk(code):
        if not isinstance(node, ast.Assert):
            continue
        for name in _receivers(node.test, SHAPE_ATTRS, SHAPE_METHODS):
            shape.update(aliases.get(name, {name}))
        for name in _receivers(node.test, {"dtype"}, set()):
            dtype.update(aliases.get(name, {name}))
    return shape, dtype


def _loop_aliases(function: ast.AST) -> Dict[str, Set[str]]:
    """Loop and comprehension variables that run over a literal tuple of names."""
    aliases: Dict[str, Set[str]] = {}
    for node in walk(function):
        pairs = []
        if isinstance(node, ast.For):
            pairs.append((node.target, node.iter))
        elif isinstance(node, ast.comprehension):
            pairs.append((node.target, node.iter))
        for target, iterable in pairs:
            if isinstance(target, ast.Name) and isinstance(iterable, (ast.Tuple, ast.List)):
                names = {e.id for e in iterable.elts if isinstance(e, ast.Name)}
                aliases.setdefault(target.id, set()).update(names)
    return aliases


def _receivers(node: ast.AST, attrs: Set[str], methods: Set[str]) -> Set[str]:
    found = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Attribute) and sub.attr in attrs and isinstance(sub.value, ast.Name):
            found.add(sub.value.id)
        if (
            isinstance(sub, ast.Call)
            and isinstance(sub.func, ast.Attribute)
            and sub.func.attr in methods
            and isinstance(sub.func.value, ast.Name)
        ):
            found.add(sub.func.value.id)
    return found


# ------------------------------------------------------------------------------ traversal


def index_tree(module: ast.Module) -> None:
    """One depth-first pass; afterwards walk() of any scope is a slice of it, not a new walk."""
    order: List[ast.AST] = []
    node_type = ast.AST

    def visit(node: ast.AST) -> None:
        start = len(order)
        order.append(node)
        for name in node._fields:
            if name == "ctx":  # Load/Store markers
                continue
            value = getattr(node, name, None)
            if isinstance(value, list):
                for item in value:
                    if isinstance(item, node_type):
                        visit(item)
            elif isinstance(value, node_type):
                visit(value)
        if isinstance(node, _SCOPES):
            node._chgen_span = (order, start, len(order))  # type: ignore[attr-defined]

    visit(module)


def walk(node: ast.AST) -> List[ast.AST]:
    """The node and everything below it (source order for indexed scopes)."""
    span = getattr(node, "_chgen_span", None)
    if span is None:
        return list(ast.walk(node))
    order, start, end = span
    return order[start:end]
