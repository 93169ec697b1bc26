"""Inputs the author's code makes (`{code: ...}`): what a block binds, and the rules it keeps.

A code input is an expression (the input's value) or statements that bind the input's name. It
runs in generate_* at the input's turn in signature order, after the case's sizes are bound and its
seed is set, so it draws from the random stream exactly where it stands. A block may also bind
inputs after it (inputs made together, e.g. tokens drawn from the probabilities they come with):
those take the block's values and have no form of their own in that case; and scalars that are no
sizes (a count of the nonzeros drawn): the case passes the value it computes. Nothing here runs the
code; chgen runs it only where it runs spec code (the sandboxed child).
"""

from __future__ import annotations

import ast
import functools
import textwrap
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

#: names generate_* uses itself, which a block may not rebind
RESERVED = frozenset({"self", "torch", "math", "ctypes", "tests", "case", "generator"})

#: statements that would end or leave generate_* (or define what belongs in reference_helpers)
_FORBIDDEN = {
    ast.Return: "return",
    ast.Yield: "yield",
    ast.YieldFrom: "yield from",
    ast.Await: "await",
    ast.Import: "import",
    ast.ImportFrom: "import",
    ast.Global: "global",
    ast.Nonlocal: "nonlocal",
    ast.FunctionDef: "def",
    ast.AsyncFunctionDef: "def",
    ast.ClassDef: "class",
}
#: scopes of their own: what they bind stays inside
_SCOPES = (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


@dataclass(frozen=True)
class CodeForm:
    """What a code input's text is: an expression, or a block and the names it binds."""

    text: str  # dedented, without the blank lines around it
    expression: bool
    bound: Tuple[str, ...]  # names the block binds in generate_*'s scope, in order
    problem: Optional[Tuple[int, str]] = None  # (line in the block, the statement) it may not hold


@functools.lru_cache(maxsize=1024)
def read_code(code: str) -> CodeForm:
    """The form of a code input (its text parses: the spec model checked it)."""
    text = textwrap.dedent(code).strip("\n")
    try:
        ast.parse(text, mode="eval")
        return CodeForm(text, True, ())
    except SyntaxError:
        pass
    tree = ast.parse(text)
    bound: List[str] = []
    problem = None
    stack: List[ast.AST] = list(reversed(tree.body))
    while stack:
        node = stack.pop()
        kind = next((word for cls, word in _FORBIDDEN.items() if isinstance(node, cls)), None)
        if kind is not None and problem is None:
            problem = (getattr(node, "lineno", 1), kind)
        if isinstance(node, _SCOPES):
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            if node.id not in bound:
                bound.append(node.id)
        stack.extend(reversed(list(ast.iter_child_nodes(node))))
    return CodeForm(text, False, tuple(bound), problem)


def is_code(form: Any) -> bool:
    return getattr(form, "kind", None) == "code"


def made_together(order: Sequence[str], forms: Mapping[str, Any]) -> Dict[str, str]:
    """The inputs an earlier input's code block binds, each -> the input whose block makes it."""
    made: Dict[str, str] = {}
    for position, name in enumerate(order):
        form = forms.get(name)
        if name in made or not is_code(form):
            continue
        read = read_code(form.code)
        for other in read.bound:
            if other in order[position + 1 :] and other not in made:
                made[other] = name
    return made


def made_scalars(
    order: Sequence[str], forms: Mapping[str, Any], scalars: Sequence[str]
) -> Dict[str, str]:
    """The scalars (no sizes) a case's code blocks compute from its inputs (`nnz`, a count of the
    nonzeros drawn), each -> the input whose block binds it: the case passes that value."""
    together = made_together(order, forms)
    made: Dict[str, str] = {}
    for name in order:
        form = forms.get(name)
        if name in together or not is_code(form):
            continue
        for bound in read_code(form.code).bound:
            if bound in scalars:
                made.setdefault(bound, name)
    return made


def code_problems(
    name: str, code: str, order: Sequence[str], names: Mapping[str, str]
) -> List[Tuple[str, str]]:
    """(message, hint) for each rule the code input of `name` breaks. `order` is the case's
    inputs in signature order; `names` every other name of the signature -> what it is ("size",
    "scalar": a scalar a block may compute, "output tensor", ...)."""
    read = read_code(code)
    if read.expression:
        return []
    found: List[Tuple[str, str]] = []
    if read.problem is not None:
        line, kind = read.problem
        found.append(
            (
                f"code of {name!r} holds `{kind}` (line {line} of the block); an input's code "
                "runs inside generate_*, where it would end or leave the method",
                "write statements that bind the input (helpers go in reference_helpers)",
            )
        )
    if name not in read.bound:
        found.append(
            (
                f"code of {name!r} is statements that never bind {name!r}",
                f"assign {name} in the block (`{name} = ...`), or write one expression",
            )
        )
    before = list(order[: list(order).index(name)]) if name in order else []
    for other in read.bound:
        if names.get(other) == "scalar":
            continue  # a scalar that is no size, computed from the inputs: the case passes it
        if names.get(other) == "given scalar":
            found.append(
                (
                    f"code of {name!r} binds {other!r}, a scalar of the example (its page shows "
                    "it)",
                    f"give {other} in the example's scalars, and rename the variable",
                )
            )
        elif names.get(other) == "size":
            found.append(
                (
                    f"code of {name!r} binds {other!r}, a size: the case's shapes are made with it "
                    "before any input",
                    f"give {other} its value in the case's scalars, and rename the variable",
                )
            )
        elif other in RESERVED:
            found.append(
                (
                    f"code of {name!r} binds {other!r}, a name generate_* uses itself",
                    "rename that variable",
                )
            )
        elif other in before:
            found.append(
                (
                    f"code of {name!r} binds {other!r}, an input made before it",
                    f"move this code to {other!r} (the first input it makes), or rename the "
                    "variable",
                )
            )
        elif other in names and other not in order:
            found.append(
                (
                    f"code of {name!r} binds {other!r}, the {names[other]} of that name",
                    "rename that variable",
                )
            )
    return found


def code_lines(name: str, code: str) -> List[str]:
    """The lines generate_* holds for a code input: `name = expression`, or the block itself."""
    read = read_code(code)
    lines = read.text.splitlines()
    if not read.expression:
        return lines
    if len(lines) == 1:
        return [f"{name} = {lines[0].strip()}"]
    return [f"{name} = ("] + lines + [")"]
