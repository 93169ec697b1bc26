"""challenge.py as source: what running it cannot tell (spellings, comments, reference text).

Running a challenge gives its tensors; only the source gives the ctypes spelling a parameter was
declared with, the reference body verbatim, the assertions chgen regenerates, and the comments that
name the functional cases.
"""

from __future__ import annotations

import ast
import builtins
import io
import re
import textwrap
import tokenize
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Set, Tuple

METHODS = (
    "reference_impl",
    "get_solve_signature",
    "generate_example_test",
    "generate_functional_test",
    "generate_performance_test",
)
#: attributes whose comparison an assertion makes only about shapes, dtypes and devices
_META_ATTRS = {"shape", "dtype", "device", "ndim"}
_META_CALLS = {"size", "dim", "numel", "ndimension"}


class SourceError(Exception):
    """challenge.py does not have the shape of a challenge (no Challenge class, no signature)."""


@dataclass
class SignatureEntry:
    name: str
    ctypes: str  # normalised spelling, e.g. "ctypes.POINTER(ctypes.c_float)" or "ctypes.c_int"
    direction: str


@dataclass
class Reference:
    params: List[str]
    body: str  # verbatim, dedented, without the assertions chgen regenerates
    dropped_asserts: List[str]  # source of every assertion removed from the body
    shape_hints: Dict[str, List[str]]  # param -> dims as written in `X.shape == (...)` asserts
    free_names: Set[str]  # names the body reads that it neither defines nor receives
    uses_self: bool
    docstring: bool


@dataclass
class FunctionalLayout:
    """Where the cases of generate_functional_test come from in its source."""

    body_lines: List[Tuple[int, int]]  # (first, last) line of each top-level statement
    comments: Dict[int, str]  # line -> text of a comment at the body's own indentation
    loop_names: Dict[int, List[str]]  # statement index -> names from a literal loop list
    def_line: int


@dataclass
class ChallengeSource:
    text: str
    attrs: Dict[str, Any]
    signature: Optional[List[SignatureEntry]]
    reference: Reference
    methods: List[str]
    imports: Dict[str, str]  # name bound at module level -> the import statement binding it
    module_names: Set[str]  # other module-level names (functions, constants)
    functional: Optional[FunctionalLayout]


def _class(tree: ast.Module) -> ast.ClassDef:
    classes = [n for n in tree.body if isinstance(n, ast.ClassDef)]
    for node in classes:
        if node.name == "Challenge":
            return node
    if len(classes) == 1:
        return classes[0]
    raise SourceError("challenge.py defines no class Challenge")


def _methods(cls: ast.ClassDef) -> Dict[str, ast.FunctionDef]:
    return {n.name: n for n in cls.body if isinstance(n, ast.FunctionDef)}


def _attrs(cls: ast.ClassDef) -> Dict[str, Any]:
    found: Dict[str, Any] = {}
    for node in cls.body:
        targets: List[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        for target in targets:
            if isinstance(target, ast.Name):
                try:
                    found[target.id] = ast.literal_eval(value)
                except ValueError:
                    pass
    return found


def normalise_ctypes(node: ast.expr) -> str:
    """`POINTER(c_float)`, `ctypes.POINTER(ctypes.c_float)` -> the dtype table's spelling.

    Anything that is not a ctypes type keeps its own spelling (and is refused later)."""
    text = ast.unparse(node)
    if isinstance(node, ast.Call) and ast.unparse(node.func).rsplit(".", 1)[-1] == "POINTER":
        inner = ", ".join(normalise_ctypes(arg) for arg in node.args)
        return f"ctypes.POINTER({inner})"
    name = text.rsplit(".", 1)[-1]
    if re.fullmatch(r"c_\w+", name) and text in (name, f"ctypes.{name}"):
        return f"ctypes.{name}"
    return text


def _signature(fn: Optional[ast.FunctionDef]) -> Optional[List[SignatureEntry]]:
    if fn is None:
        return None
    returns = [n for n in ast.walk(fn) if isinstance(n, ast.Return) and n.value is not None]
    if len(returns) != 1 or not isinstance(returns[0].value, ast.Dict):
        return None
    entries = []
    for key, value in zip(returns[0].value.keys, returns[0].value.values):
        if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
            return None
        if not (isinstance(value, ast.Tuple) and len(value.elts) == 2):
            return None
        kind, direction = value.elts
        if not (isinstance(direction, ast.Constant) and isinstance(direction.value, str)):
            return None
        entries.append(SignatureEntry(key.value, normalise_ctypes(kind), direction.value))
    return entries


def _comments(text: str) -> Dict[int, Tuple[int, str]]:
    """line -> (column, text without '#') for every comment token."""
    found = {}
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.COMMENT:
                found[tok.start[0]] = (tok.start[1], tok.string[1:].strip())
    except (tokenize.TokenError, IndentationError):
        pass
    return found


def _header_end(lines: List[str], fn: ast.FunctionDef) -> int:
    """The line holding the ':' that ends a (possibly multi-line) def header (1-based)."""
    source = "\n".join(lines[fn.lineno - 1 : fn.body[0].lineno])
    depth = 0
    line = fn.lineno
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type == tokenize.OP and tok.string in "([{":
                depth += 1
            elif tok.type == tokenize.OP and tok.string in ")]}":
                depth -= 1
            elif tok.type == tokenize.OP and tok.string == ":" and depth == 0:
                return fn.lineno + tok.start[0] - 1
    except (tokenize.TokenError, IndentationError):
        pass
    return line


def _is_meta(node: ast.expr) -> bool:
    if isinstance(node, ast.Attribute):
        if node.attr in _META_ATTRS:
            return True
        base = node
        while isinstance(base, ast.Attribute):
            base = base.value
        return isinstance(base, ast.Name) and base.id == "torch"
    if isinstance(node, (ast.Name, ast.Constant)):
        return True
    if isinstance(node, (ast.Tuple, ast.List)):
        return all(_is_meta(e) for e in node.elts)
    if isinstance(node, ast.BinOp):
        return _is_meta(node.left) and _is_meta(node.right)
    if isinstance(node, ast.Subscript):
        return _is_meta(node.value) and _is_meta(node.slice)
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in _META_CALLS:
            return all(_is_meta(a) for a in node.args)
        if isinstance(func, ast.Name) and func.id == "len":
            return all(_is_meta(a) for a in node.args)
    return False


def _mentions_meta(node: ast.expr) -> bool:
    for sub in ast.walk(node):
        if isinstance(sub, ast.Attribute) and sub.attr in _META_ATTRS:
            return True
        if isinstance(sub, ast.Call):
            func = sub.func
            if isinstance(func, ast.Attribute) and func.attr in _META_CALLS:
                return True
    return False


def is_regenerated_assert(node: ast.stmt) -> bool:
    """An assertion about shapes, dtypes or devices only: chgen writes its own from the spec."""
    if not isinstance(node, ast.Assert):
        return False
    tests = node.test.values if isinstance(node.test, ast.BoolOp) else [node.test]
    for test in tests:
        if not isinstance(test, ast.Compare):
            return False
        if not all(_is_meta(e) for e in [test.left, *test.comparators]):
            return False
        if not _mentions_meta(test):
            return False
    return True


def _shape_hints(asserts: List[ast.Assert]) -> Dict[str, List[str]]:
    hints: Dict[str, List[str]] = {}
    for node in asserts:
        tests = node.test.values if isinstance(node.test, ast.BoolOp) else [node.test]
        for test in tests:
            if not isinstance(test, ast.Compare):
                continue
            operands = [test.left, *test.comparators]
            tuples = [o for o in operands if isinstance(o, (ast.Tuple, ast.List))]
            if len(tuples) != 1:
                continue
            dims = [ast.unparse(e) for e in tuples[0].elts]
            for o in operands:
                if (
                    isinstance(o, ast.Attribute)
                    and o.attr == "shape"
                    and isinstance(o.value, ast.Name)
                ):
                    hints.setdefault(o.value.id, dims)
    return hints


def _free_names(body: List[ast.stmt], params: List[str]) -> Set[str]:
    module = ast.Module(body=body, type_ignores=[])
    stored, loaded = set(), set()
    for node in ast.walk(module):
        if isinstance(node, ast.Name):
            (stored if isinstance(node.ctx, (ast.Store, ast.Del)) else loaded).add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.Lambda)):
            args = node.args
            for a in args.args + args.kwonlyargs + args.posonlyargs:
                stored.add(a.arg)
            if isinstance(node, ast.FunctionDef):
                stored.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                stored.add((alias.asname or alias.name).split(".")[0])
        elif isinstance(node, ast.comprehension):
            for sub in ast.walk(node.target):
                if isinstance(sub, ast.Name):
                    stored.add(sub.id)
    return loaded - stored - set(params) - set(dir(builtins)) - {"torch"}


def _reference(fn: ast.FunctionDef, lines: List[str]) -> Reference:
    params = [a.arg for a in fn.args.args[1:]]
    start = _header_end(lines, fn)  # body text starts on the next line
    removed: Set[int] = set()
    dropped: List[str] = []
    kept: List[ast.stmt] = []
    asserts: List[ast.Assert] = []
    docstring = False
    for index, node in enumerate(fn.body):
        span = range(node.lineno, node.end_lineno + 1)
        is_doc = (
            index == 0
            and isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        )
        if is_doc or is_regenerated_assert(node):
            removed.update(span)
            if is_doc:
                docstring = True
            else:
                asserts.append(node)
                dropped.append(" ".join(ast.unparse(node).split()))
        else:
            kept.append(node)
    body_lines = [lines[n - 1] for n in range(start + 1, fn.end_lineno + 1) if n not in removed]
    body = textwrap.dedent("\n".join(body_lines)).strip("\n")
    # blank runs left by removed statements collapse to one blank line
    out: List[str] = []
    for line in body.splitlines():
        if not line.strip() and out and not out[-1].strip():
            continue
        out.append(line.rstrip() if not line.strip() else line)
    uses_self = any(isinstance(n, ast.Name) and n.id == "self" for s in kept for n in ast.walk(s))
    return Reference(
        params=params,
        body="\n".join(out),
        dropped_asserts=dropped,
        shape_hints=_shape_hints(asserts),
        free_names=_free_names(kept, params) - {"self"},
        uses_self=uses_self,
        docstring=docstring,
    )


def _literal_names(node: ast.expr, assigned: Dict[str, ast.expr]) -> Optional[List[str]]:
    """Names from `[("name", ...), ...]` (or a variable bound to one) that a loop runs over."""
    if isinstance(node, ast.Name) and node.id in assigned:
        node = assigned[node.id]
    if not isinstance(node, (ast.List, ast.Tuple)) or not node.elts:
        return None
    names = []
    for element in node.elts:
        if not isinstance(element, (ast.Tuple, ast.List)) or not element.elts:
            return None
        first = element.elts[0]
        if not (isinstance(first, ast.Constant) and isinstance(first.value, str)):
            return None
        names.append(first.value)
    return names


def _functional(fn: Optional[ast.FunctionDef], text: str) -> Optional[FunctionalLayout]:
    if fn is None:
        return None
    column = fn.body[0].col_offset
    comments = {
        line: comment
        for line, (col, comment) in _comments(text).items()
        if col == column and fn.lineno < line <= fn.end_lineno
    }
    assigned: Dict[str, ast.expr] = {}
    loop_names: Dict[int, List[str]] = {}
    spans = []
    for index, node in enumerate(fn.body):
        spans.append((node.lineno, node.end_lineno))
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name):
                assigned[target.id] = node.value
        if isinstance(node, ast.For):
            names = _literal_names(node.iter, assigned)
            if names:
                loop_names[index] = names
    return FunctionalLayout(spans, comments, loop_names, fn.lineno)


def _module_names(tree: ast.Module) -> Tuple[Dict[str, str], Set[str]]:
    imports: Dict[str, str] = {}
    others: Set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    imports[alias.asname] = f"import {alias.name} as {alias.asname}"
                else:
                    top = alias.name.split(".")[0]
                    imports[top] = f"import {alias.name}"
        elif isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                bound = alias.asname or alias.name
                spelled = f"{alias.name} as {alias.asname}" if alias.asname else alias.name
                imports[bound] = f"from {node.module} import {spelled}"
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            others.add(node.name)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                for sub in ast.walk(target):
                    if isinstance(sub, ast.Name):
                        others.add(sub.id)
    return imports, others


def read_source(text: str) -> ChallengeSource:
    """Everything chgen import takes from challenge.py's text."""
    try:
        tree = ast.parse(text)
    except SyntaxError as exc:
        raise SourceError(f"challenge.py does not parse: {exc.msg} (line {exc.lineno})") from None
    cls = _class(tree)
    methods = _methods(cls)
    if "reference_impl" not in methods:
        raise SourceError("class Challenge has no reference_impl")
    lines = text.splitlines()
    imports, module_names = _module_names(tree)
    return ChallengeSource(
        text=text,
        attrs=_attrs(cls),
        signature=_signature(methods.get("get_solve_signature")),
        reference=_reference(methods["reference_impl"], lines),
        methods=list(methods),
        imports=imports,
        module_names=module_names - {"Challenge"},
        functional=_functional(methods.get("generate_functional_test"), text),
    )


def statement_of(layout: FunctionalLayout, line: Optional[int]) -> Optional[int]:
    if line is None:
        return None
    for index, (first, last) in enumerate(layout.body_lines):
        if first <= line <= last:
            return index
    return None


def comment_above(layout: FunctionalLayout, line: int, after: int) -> Optional[str]:
    """The comment block nearest above `line` that starts below `after` (joined lines)."""
    candidates = [n for n in layout.comments if after < n < line]
    if not candidates:
        return None
    last = max(candidates)
    block = [layout.comments[last]]
    n = last - 1
    while n in layout.comments and n > after:
        block.insert(0, layout.comments[n])
        n -= 1
    return " ".join(part for part in block if part)
