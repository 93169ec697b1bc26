"""What the regenerated challenge.py changes in the original, by cause, and why.

The import proves the two files equivalent (equivalence.py); this says what a maintainer reviewing
the diff sees. Both files are read as written (generator/challenge/pyfile.py) and compared part by
part: the imports, the module's own code, the class attributes, each method; every difference is
put down to the cause that makes chgen write it so. The causes are one fixed vocabulary (CAUSES),
so that the imports of a whole tree can be counted by cause.
"""

from __future__ import annotations

import ast
import difflib
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

from generator.challenge.pyfile import ATTRIBUTES, ChallengePy, read_challenge_py

#: cause -> why chgen writes it so (in the order a report lists them)
CAUSES: Dict[str, str] = {
    "device assertion dropped": "rule P014 forbids asserting on devices (references also run on "
    "XLA devices)",
    "assertions added": "the original does not assert every tensor's shape and dtype; chgen adds "
    "one from the signature for each one missing (rules P012, P013)",
    "assertion forms replaced": "an assertion chgen does not keep (it reads a device or a size "
    "only such assertions read) is replaced by chgen's per-parameter ones",
    "sizes dropped with assertions": "a size only the dropped assertions read would be an unused "
    "local (flake8 F841)",
    "reference body changed": "the reference as the spec holds it (an import chgen cannot keep at "
    "module level is moved into it)",
    "imports changed": "challenge.py imports ctypes, typing, torch, the base class and what the "
    "reference's helpers import; nothing else",
    "module code changed": "module-level code the reference does not reach has no place in a spec "
    "(what it reaches is kept as reference_helpers)",
    "class attributes respelled": "tolerances and the other attributes written in chgen's form",
    "class code dropped": "class-level code beyond the five attributes has no place in a spec",
    "signature respelled": "get_solve_signature written from the spec's dtypes",
    "reference_impl_jax dropped": "a spec has no place for it yet",
    "methods dropped": "methods beyond the five (case builders, helpers the reference does not "
    "call) are not carried over: the spec records the cases they build as data",
    "loops written out as cases": "a spec lists its cases one by one, so a loop over case "
    "parameters becomes one block per case",
    "cases written in chgen's form": "each case is written from the spec's data: its sizes, each "
    "input as one torch call, `_make` for the solve order and the outputs (the original's own "
    "spellings, a `dtype` variable, dict literals, are not kept)",
    "comments dropped": "comments other than a case's name and note have no place in a spec",
    "docstrings dropped": "docstrings of methods chgen writes itself are its own",
    "layout changed": "the same code, laid out as chgen's template writes it",
}

_CASE_METHODS = ("generate_example_test", "generate_functional_test", "generate_performance_test")


@dataclass
class Change:
    cause: str
    details: List[str] = field(default_factory=list)

    @property
    def why(self) -> str:
        return CAUSES[self.cause]


@dataclass
class PyChanges:
    """The regenerated challenge.py against the original: lines and causes."""

    identical: bool
    added: int = 0  # lines, as a unified diff counts them
    removed: int = 0
    changes: List[Change] = field(default_factory=list)

    def causes(self) -> List[str]:
        return [c.cause for c in self.changes]

    def summary(self) -> str:
        """`challenge.py +12 -30: assertions added (2), cases written in chgen's form`."""
        if self.identical:
            return "challenge.py identical"
        parts = [
            c.cause + (f" ({len(c.details)})" if len(c.details) > 1 else "") for c in self.changes
        ]
        return f"challenge.py +{self.added} -{self.removed}: " + "; ".join(parts)

    def lines(self) -> List[str]:
        """One report line per cause: what changed, why, and the details."""
        found = []
        for change in self.changes:
            shown = "; ".join(change.details[:4]) + ("; ..." if len(change.details) > 4 else "")
            found.append(
                f"challenge.py: {change.cause}: {change.why}" + (f" ({shown})" if shown else "")
            )
        return found


def account(original: str, regenerated: str) -> PyChanges:
    """Every difference between the two challenge.py texts, by cause (CAUSES' order)."""
    if original == regenerated:
        return PyChanges(True)
    added, removed = _counts(original, regenerated)
    old, new = read_challenge_py(original), read_challenge_py(regenerated)
    found: Dict[str, List[str]] = {}
    if old.module is None or new.module is None or old.cls is None or new.cls is None:
        found["layout changed"] = ["one of the files does not parse as a challenge"]
    else:
        _imports(old, new, found)
        _module_code(old, new, found)
        _attributes(old, new, found)
        _methods(old, new, found)
        _comments(old, new, found)
        if not found:
            found["layout changed"] = []
    changes = [Change(cause, found[cause]) for cause in CAUSES if cause in found]
    return PyChanges(False, added, removed, changes)


def _counts(original: str, regenerated: str) -> Tuple[int, int]:
    diff = difflib.unified_diff(original.splitlines(), regenerated.splitlines(), lineterm="", n=0)
    added = removed = 0
    for line in diff:
        if line.startswith("+") and not line.startswith("+++"):
            added += 1
        elif line.startswith("-") and not line.startswith("---"):
            removed += 1
    return added, removed


def _add(found: Dict[str, List[str]], cause: str, detail: Optional[str] = None) -> None:
    details = found.setdefault(cause, [])
    if detail is not None and detail not in details:
        details.append(detail)


def _source(node: ast.AST) -> str:
    return " ".join(ast.unparse(node).split())


def _imports(old: ChallengePy, new: ChallengePy, found: Dict[str, List[str]]) -> None:
    def statements(read: ChallengePy) -> List[str]:
        return [
            _source(node)
            for node in read.module.body
            if isinstance(node, (ast.Import, ast.ImportFrom))
        ]

    before, after = statements(old), statements(new)
    if before == after:
        return
    gone = [s for s in before if s not in after]
    came = [s for s in after if s not in before]
    for statement in gone:
        _add(found, "imports changed", f"`{statement}` dropped")
    for statement in came:
        _add(found, "imports changed", f"`{statement}` added")
    if not gone and not came:
        _add(found, "imports changed", "reordered")


def _module_code(old: ChallengePy, new: ChallengePy, found: Dict[str, List[str]]) -> None:
    """Module-level statements other than imports and the class, matched by source."""

    def statements(read: ChallengePy) -> List[str]:
        return [
            _source(node)
            for node in read.module.body
            if not isinstance(node, (ast.Import, ast.ImportFrom))
            and not (isinstance(node, ast.ClassDef) and node is read.cls)
        ]

    before, after = statements(old), statements(new)
    for statement in before:
        if statement not in after:
            _add(found, "module code changed", f"`{statement.split(':')[0][:60]}` dropped")
    for statement in after:
        if statement not in before:
            _add(found, "module code changed", f"`{statement.split(':')[0][:60]}` added")


def _attributes(old: ChallengePy, new: ChallengePy, found: Dict[str, List[str]]) -> None:
    for name in ATTRIBUTES:
        a, b = old.attributes.get(name), new.attributes.get(name)
        text_a = old.segment(a) if a is not None else None
        text_b = new.segment(b) if b is not None else None
        if text_a != text_b:
            _add(found, "class attributes respelled", f"`{text_a}` -> `{text_b}`")
    others = [
        node
        for node in old.cls.body
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        and not any(node is n for n in old.attributes.values())
    ]
    for node in others:
        _add(found, "class code dropped", f"`{_source(node)[:60]}`")


def _methods(old: ChallengePy, new: ChallengePy, found: Dict[str, List[str]]) -> None:
    for name in old.methods:
        if name not in new.methods:
            cause = "reference_impl_jax dropped" if name == "reference_impl_jax" else None
            _add(found, cause or "methods dropped", None if cause else name)
    for name, node in old.methods.items():
        other = new.methods.get(name)
        if other is None:
            continue
        if name == "reference_impl":
            _reference(node, other, found)
        elif name == "get_solve_signature":
            if ast.dump(node) != ast.dump(other):
                _add(found, "signature respelled", _first_difference(node, other))
        elif name in _CASE_METHODS:
            _cases(name, node, other, found)
        elif ast.dump(node) != ast.dump(other):
            _add(found, "reference body changed", f"{name} differs")
        if name != "reference_impl" and ast.get_docstring(node) and not ast.get_docstring(other):
            _add(found, "docstrings dropped", name)
    if "_make" in new.methods and "_make" not in old.methods:
        _add(found, "cases written in chgen's form", "`_make` builds each case in solve order")
    _layout_only(old, new, found)


def _split_reference(fn: ast.FunctionDef) -> Tuple[List[ast.stmt], List[ast.stmt]]:
    """(assertions, everything else) of a reference body, the docstring left out."""
    body = fn.body[1:] if ast.get_docstring(fn) is not None else fn.body
    asserts = [s for s in body if isinstance(s, ast.Assert)]
    return asserts, [s for s in body if not isinstance(s, ast.Assert)]


def _reference(old: ast.FunctionDef, new: ast.FunctionDef, found: Dict[str, List[str]]) -> None:
    old_asserts, old_rest = _split_reference(old)
    new_asserts, new_rest = _split_reference(new)
    before = [_source(a) for a in old_asserts]
    after = [_source(a) for a in new_asserts]
    devices = [a for a in before if ".device" in a]
    for statement in devices:
        if statement not in after:
            _add(found, "device assertion dropped", f"`{statement}`")
    for statement in after:
        if statement not in before:
            _add(found, "assertions added", f"`{statement}`")
    for statement in before:
        if statement not in after and statement not in devices:
            _add(found, "assertion forms replaced", f"`{statement}`")
    if ast.get_docstring(old) is not None and ast.get_docstring(new) is None:
        _add(found, "docstrings dropped", "reference_impl")
    rest_before = [_source(s) for s in old_rest]
    rest_after = [_source(s) for s in new_rest]
    if rest_before != rest_after:
        gone = [s for s in rest_before if s not in rest_after]
        came = [s for s in rest_after if s not in rest_before]
        sizes = [s for s in gone if _is_size_assignment(s)]
        for statement in sizes:
            _add(found, "sizes dropped with assertions", f"`{statement}`")
        others = [s for s in gone if s not in sizes]
        if others or came:
            shown = (came or others)[0]
            _add(found, "reference body changed", f"`{shown[:70]}`")
        elif not sizes:
            _add(found, "reference body changed", "statements reordered")
    if ast.dump(old.args) != ast.dump(new.args):
        _add(found, "reference body changed", "reference_impl's parameters respelled")


def _is_size_assignment(statement: str) -> bool:
    try:
        node = ast.parse(statement).body[0]
    except SyntaxError:
        return False
    return isinstance(node, ast.Assign) and not any(
        isinstance(sub, ast.Call) for sub in ast.walk(node.value)
    )


def _cases(
    name: str, old: ast.FunctionDef, new: ast.FunctionDef, found: Dict[str, List[str]]
) -> None:
    if ast.dump(old) == ast.dump(new):
        return
    loops = [
        n
        for n in ast.walk(old)
        if isinstance(n, (ast.For, ast.While, ast.ListComp, ast.GeneratorExp, ast.DictComp))
    ]
    if loops and name == "generate_functional_test":
        _add(found, "loops written out as cases", f"{len(loops)} loop(s) in {name}")
    local_dtype = any(
        isinstance(n, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == "dtype" for t in n.targets)
        for n in ast.walk(old)
    )
    detail = f"{name}" + (" (its `dtype` variable inlined)" if local_dtype else "")
    _add(found, "cases written in chgen's form", detail)


def _first_difference(old: ast.AST, new: ast.AST) -> str:
    a, b = ast.unparse(old).splitlines(), ast.unparse(new).splitlines()
    for x, y in zip(a, b):
        if x != y:
            return f"`{x.strip()}` -> `{y.strip()}`"
    return "entries added or dropped"


def _comments(old: ChallengePy, new: ChallengePy, found: Dict[str, List[str]]) -> None:
    """Comments of the original no line of the regenerated file carries (a case's comment is
    carried when the regenerated one ends with its text)."""
    kept = [text for _, (_, text) in sorted(new.comments().items())]
    for _, (_, text) in sorted(old.comments().items()):
        if not text or text.startswith(("noqa", "fmt:", "type:")):
            continue
        if not any(k == text or k.endswith(f": {text}") or text in k for k in kept):
            _add(found, "comments dropped", f"`# {text[:60]}`")


def _layout_only(old: ChallengePy, new: ChallengePy, found: Dict[str, List[str]]) -> None:
    """A method whose code is the same but whose text is not (blank lines, line breaks)."""
    for name, node in old.methods.items():
        other = new.methods.get(name)
        if other is None or ast.dump(node) != ast.dump(other):
            continue
        a, b = old.method(name), new.method(name)
        if a is not None and b is not None and _code_lines(a.source) != _code_lines(b.source):
            _add(found, "layout changed", name)


def _code_lines(source: str) -> List[str]:
    """A method's lines without its comment lines (those are counted as comments)."""
    return [line for line in source.splitlines() if not line.lstrip().startswith("#")]
