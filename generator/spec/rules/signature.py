"""`signature` and `reference`: parameter names, shapes of sizes, outputs written in place."""

from __future__ import annotations

import ast
import textwrap
from typing import Dict, Iterable, Tuple

from generator.spec.derived import SpecView
from generator.spec.rules.common import Issue, check_shape_names
from generator.spec.yamlpos import BlockLine


def validate_signature(view: SpecView) -> Iterable[Issue]:
    seen: Dict[str, int] = {}
    for i, p in enumerate(view.spec.signature):
        if p.name in seen:
            yield (
                ("signature", i, "name"),
                f"duplicate parameter name {p.name!r}",
                "rename one of them",
            )
        seen[p.name] = i
    if not view.outputs:
        yield ("signature",), "the signature has no out or inout tensor", "solve must write one"
    for i, p in enumerate(view.spec.signature):
        yield from check_shape_names(view, p.name, p.shape or [], ("signature", i, "shape"))


def validate_reference(view: SpecView) -> Iterable[Issue]:
    """Outputs are written in place: a reference that binds an output's name to a new tensor
    (`output = ...`) leaves the caller's tensor as it was (its prefill). A new binding made
    from the output itself (`y = y.view(-1)`, a view of it) is no such mistake."""
    outputs = {p.name for p in view.outputs}
    try:
        tree = ast.parse(textwrap.dedent(view.spec.reference))
    except SyntaxError:
        return  # reported by the model
    for node, name in _rebound_names(tree):
        value = getattr(node, "value", None)
        reads = value is not None and any(
            isinstance(n, ast.Name) and n.id == name for n in ast.walk(value)
        )
        if name in outputs and not reads:  # `y = y.view(-1)` still writes into the caller's y
            yield (
                ("reference", BlockLine(node.lineno - 1)),
                f"the reference rebinds the output {name!r} (line {node.lineno} of the block): "
                f"the tensor the caller passed keeps its prefill; outputs are written in place",
                f"write into it: {name}.copy_(...) or {name}[...] = ...",
            )


def _rebound_names(tree: ast.AST) -> Iterable[Tuple[ast.AST, str]]:
    """(statement, name) of every plain name a statement binds: `x = ...`, `x: T = ...`,
    `for x in ...`, `with ... as x`, `(x := ...)`, tuple targets too (not `x[...] = ...`)."""

    def names(target: ast.AST) -> Iterable[str]:
        if isinstance(target, ast.Name):
            yield target.id
        elif isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                yield from names(element)
        elif isinstance(target, ast.Starred):
            yield from names(target.value)

    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AnnAssign, ast.For, ast.NamedExpr)):
            targets = [node.target]
        elif isinstance(node, ast.With):
            targets = [item.optional_vars for item in node.items if item.optional_vars]
        else:
            continue
        for target in targets:
            for name in names(target):
                yield node, name
