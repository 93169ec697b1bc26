"""challenge.py as source: what running it cannot tell (spellings, comments, reference text).

Running a challenge gives its tensors; only the source gives the ctypes spelling a parameter was
declared with, the reference body verbatim, the assertions chgen regenerates, and the comments that
name the functional cases. The file is read by generator/challenge/pyfile.py; this module picks
from those facts what a spec needs.
"""

from __future__ import annotations

import ast
import builtins
import textwrap
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Set, Tuple

from generator.challenge.pyfile import REQUIRED_METHODS as METHODS  # noqa: F401 - build reads it
from generator.challenge.pyfile import ChallengePy, Method, SigEntry, read_challenge_py
from generator.spec.model import HELPER_MODULES

#: attributes whose comparison an assertion makes only about shapes, dtypes and devices
_META_ATTRS = {"shape", "dtype", "device", "ndim"}
_META_CALLS = {"size", "dim", "numel", "ndimension"}


class SourceError(Exception):
    """challenge.py does not have the shape of a challenge (no Challenge class, no signature)."""


@dataclass
class Reference:
    params: List[str]
    body: str  # verbatim, dedented, without the assertions chgen regenerates
    dropped_asserts: List[str]  # source of every assertion removed from the body
    #: source of every assignment removed with them (a size only those assertions read)
    dropped_locals: List[str]
    shape_hints: Dict[str, List[str]]  # param -> dims as written in `X.shape == (...)` asserts
    free_names: Set[str]  # names the body reads that it neither defines nor receives
    uses_self: bool
    docstring: bool


@dataclass
class JaxReference:
    """reference_impl_jax as written: what a spec's reference_jax carries."""

    params: List[str]
    body: str  # verbatim, dedented (a blank first line kept)
    free_names: Set[str]  # names the body reads that it neither defines nor receives
    #: one parameter per line where black would have kept them on one (a magic trailing comma)
    exploded: bool


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
    signature: Optional[List[SigEntry]]
    reference: Reference
    methods: List[str]
    imports: Dict[str, str]  # name bound at module level -> the import statement binding it
    module_names: Set[str]  # other module-level names (functions, constants)
    functional: Optional[FunctionalLayout]
    #: the functions reference_impl reaches (methods it calls on self, module functions it
    #: names, and theirs), as a spec's reference_helpers source; None when there are none
    helpers: Optional[str] = None
    helper_names: Set[str] = field(default_factory=set)
    helper_imports: Set[str] = field(default_factory=set)  # names whose import helpers carry
    reference_jax: Optional[JaxReference] = None


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


def _loaded(nodes: List[ast.stmt]) -> Set[str]:
    return {
        sub.id
        for node in nodes
        for sub in ast.walk(node)
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load)
    }


def _assigned_size(node: ast.stmt) -> Optional[str]:
    """The name `name = <arithmetic of sizes and shapes>` binds (no call with effects) or None."""
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and _is_meta(node.value):
        target = node.targets[0]
        return target.id if isinstance(target, ast.Name) else None
    return None


def _locals_only_asserts_read(kept: List[ast.stmt], asserts: List[ast.Assert]) -> List[ast.stmt]:
    """The assignments of a size (`blocks = (N + B - 1) // B`) that only the removed assertions
    (or sizes removed with them) read: left in the body they would be unused locals (flake8
    F841), so they go with them."""
    dead: List[ast.stmt] = []
    while True:
        asserted = _loaded([*asserts, *dead])
        read = _loaded([node for node in kept if node not in dead])
        newly = [
            node
            for node in kept
            if node not in dead
            and _assigned_size(node) in asserted
            and _assigned_size(node) not in read
        ]
        if not newly:
            return dead
        dead += newly


def _reference(method: Method, lines: List[str]) -> Reference:
    fn = method.node
    params = method.params
    start = method.header_end  # body text starts on the next line
    removed: Set[int] = set()
    dropped: List[str] = []
    kept: List[ast.stmt] = []
    asserts: List[ast.Assert] = []
    dropped_locals: List[str] = []
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
    for node in _locals_only_asserts_read(kept, asserts):
        kept.remove(node)
        removed.update(range(node.lineno, node.end_lineno + 1))
        dropped_locals.append(" ".join(ast.unparse(node).split()))
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
        dropped_locals=dropped_locals,
        shape_hints=_shape_hints(asserts),
        free_names=_free_names(kept, params) - {"self"},
        uses_self=uses_self,
        docstring=docstring,
    )


#: black's line length, which decides whether a header fits on one line
LINE_LENGTH = 100


def _jax_reference(method: Method, lines: List[str]) -> JaxReference:
    fn = method.node
    body = textwrap.dedent("\n".join(lines[method.header_end : fn.end_lineno])).rstrip()
    header = lines[method.line - 1 : method.header_end]
    one_per_line = len(header) == len(method.params) + 3  # def ...(, self, each, ):
    # black splits a header that is too long for one line as `(\n self, a, b\n):` first; one
    # parameter per line only when that does not fit either (else a trailing comma asked for it)
    wrapped = " " * (fn.col_offset + 4) + ", ".join(["self"] + method.params)
    return JaxReference(
        params=method.params,
        body=body,
        free_names=_free_names(fn.body, method.params) - {"self"},
        exploded=one_per_line and len(wrapped) <= LINE_LENGTH,
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


def _functional(read: ChallengePy) -> Optional[FunctionalLayout]:
    fn = read.methods.get("generate_functional_test")
    if fn is None:
        return None
    column = fn.body[0].col_offset
    comments = {
        line: comment
        for line, (col, comment) in read.comments().items()
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


def _called_on_self(node: ast.AST) -> Set[str]:
    return {
        sub.func.attr
        for sub in ast.walk(node)
        if isinstance(sub, ast.Call)
        and isinstance(sub.func, ast.Attribute)
        and isinstance(sub.func.value, ast.Name)
        and sub.func.value.id == "self"
    }


def _named(node: ast.AST) -> Set[str]:
    return {sub.id for sub in ast.walk(node) if isinstance(sub, ast.Name)}


def _module_constants(read: Any) -> Dict[str, ast.Assign]:
    """Module-level `NAME = value` assignments (one name each), by name."""
    found: Dict[str, ast.Assign] = {}
    for node in read.module.body:
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
        ):
            found[node.targets[0].id] = node
    return found


def _with_comments(lines: List[str], first: int, last: int) -> str:
    """Source lines first..last (1-based), with the comment lines right above them."""
    start = first - 1
    while start > 0 and lines[start - 1].lstrip().startswith("#"):
        start -= 1
    return textwrap.dedent("\n".join(lines[start:last]))


def _helpers(
    read: Any, roots: List[ast.FunctionDef], lines: List[str], imported: Set[str]
) -> Tuple[List[str], str, Set[str]]:
    """What the references (`roots`) reach, transitively: methods of the class they call on
    `self` (not the five every challenge has), module-level functions and constants they name, in
    source order, after the imports (beyond torch) they need and the module imports `imported`
    (names reference_impl_jax reads); the last item names the imports carried."""
    module_functions = {
        node.name: node for node in read.module.body if isinstance(node, ast.FunctionDef)
    }
    # a constant named as a parameter is shadowed by it wherever the parameter is in reach
    parameters = {a.arg for a in roots[0].args.args}
    constants = {n: c for n, c in _module_constants(read).items() if n not in parameters}
    own = {n for n in read.methods if n not in METHODS and n != "reference_impl_jax"}
    reached: Dict[str, ast.stmt] = {}
    todo: List[ast.AST] = list(roots)
    while todo:
        node = todo.pop()
        named = _named(node)
        wanted = {(n, read.methods[n]) for n in _called_on_self(node) if n in own}
        wanted |= {(n, module_functions[n]) for n in named if n in module_functions}
        wanted |= {(n, constants[n]) for n in named if n in constants and n not in own}
        for name, found in sorted(wanted, key=lambda item: item[1].lineno):
            if name not in reached:
                reached[name] = found
                todo.append(found)
    if not reached and not imported:
        return [], "", set()
    ordered = sorted(reached.values(), key=lambda n: n.lineno)
    needed = set().union(imported, *(_named(node) for node in ordered))
    carried = sorted(n for n in needed if n in read.imports and n != "torch")
    imports = [read.imports[n] for n in carried]
    values = [node for node in ordered if isinstance(node, ast.Assign)]
    chunks = ["\n".join(imports)] if imports else []
    if values:
        chunks.append(
            "\n".join(_with_comments(lines, node.lineno, node.end_lineno) for node in values)
        )
    for node in ordered:
        if isinstance(node, ast.FunctionDef):
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            chunks.append(textwrap.dedent("\n".join(lines[first - 1 : node.end_lineno])))
    return list(reached), "\n\n".join(chunks), set(carried)


def read_source(text: str) -> ChallengeSource:
    """Everything chgen import takes from challenge.py's text."""
    read = read_challenge_py(text)
    if read.module is None:
        exc = read.syntax_error
        raise SourceError(f"challenge.py does not parse: {exc.msg} (line {exc.lineno})")
    if read.cls is None and len(read.classes) == 1:  # a class of another name stands for it
        read = read_challenge_py(text, class_name=read.classes[0])
    if read.cls is None:
        raise SourceError("challenge.py defines no class Challenge")
    reference = read.method("reference_impl")
    if reference is None:
        raise SourceError("class Challenge has no reference_impl")
    facts = read.attribute_facts
    literals = {name: fact.literal for name, fact in facts.items() if fact.has_literal}
    jax_method = read.method("reference_impl_jax")
    jax = _jax_reference(jax_method, read.lines) if jax_method is not None else None
    roots = [read.methods["reference_impl"]] + ([jax_method.node] if jax_method else [])
    # modules reference_jax reads from challenge.py's imports: helpers carry math and torch
    imported = {
        n
        for n in (jax.free_names if jax else set())
        if n in read.imports and read.imports[n].split()[1].split(".")[0] in HELPER_MODULES
    }
    helper_names, helpers, helper_imports = _helpers(read, roots, read.lines, imported)
    return ChallengeSource(
        text=text,
        attrs=literals,
        signature=read.signature,
        reference=_reference(reference, read.lines),
        methods=list(read.methods),
        imports=read.imports,
        module_names=set(read.module_names) - {"Challenge"},
        functional=_functional(read),
        helpers=helpers or None,
        helper_names=set(helper_names),
        helper_imports=helper_imports,
        reference_jax=jax,
    )


def statement_of(layout: FunctionalLayout, line: Optional[int]) -> Optional[int]:
    if line is None:
        return None
    for index, (first, last) in enumerate(layout.body_lines):
        if first <= line <= last:
            return index
    return None
